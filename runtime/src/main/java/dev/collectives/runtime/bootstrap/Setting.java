package dev.collectives.runtime.bootstrap;

/**
 * Every setting of joining a job ({@link dev.collectives.runtime.Bootstrap}) and of the device backends, in one
 * place: its names (a {@code COLLECTIVES_*} variable, a {@code collectives.*} system property, or both), its default
 * as the guide's settings table gives it, and what it means. The code that reads a setting takes its names from here,
 * and a test holds the guide's table to this list. Public for the backends; not API.
 */
public enum Setting {
    RANK("COLLECTIVES_RANK", "collectives.rank", "the launcher's; 0 in a job of one process", "this process's rank"),
    WORLD_SIZE("COLLECTIVES_WORLD_SIZE", "collectives.worldSize", "the launcher's, else 1", "the number of ranks"),
    LOCAL_RANK("COLLECTIVES_LOCAL_RANK", "collectives.localRank", "the launcher's, else 0", "the rank on this node"),
    LOCAL_SIZE("COLLECTIVES_LOCAL_SIZE", "collectives.localSize", "the launcher's, else unknown", "ranks on this node"),
    DEVICE(
            "COLLECTIVES_DEVICE",
            "collectives.device",
            "0 if `CUDA_VISIBLE_DEVICES` / `MUSA_VISIBLE_DEVICES` names a single device, else the local rank",
            "the GPU this process uses"),
    RENDEZVOUS(
            "COLLECTIVES_RENDEZVOUS",
            "collectives.rendezvous",
            "`tcp://$MASTER_ADDR:$MASTER_PORT` when both are set (`MASTER_PORT + 1` under torchrun)",
            "where the ranks meet"),
    BOOTSTRAP_TIMEOUT(
            "COLLECTIVES_BOOTSTRAP_TIMEOUT",
            "collectives.bootstrapTimeout",
            Settings.formatDuration(Settings.DEFAULT_TIMEOUT),
            "the longest wait for one bootstrap step"),
    HEARTBEAT_TIMEOUT(
            "COLLECTIVES_HEARTBEAT_TIMEOUT",
            "collectives.heartbeatTimeout",
            Settings.formatDuration(Settings.DEFAULT_HEARTBEAT_TIMEOUT),
            "how long a rank (or the server) may be silent before it is declared dead"),
    JOB_TOKEN(
            Settings.JOB_TOKEN,
            null,
            "required when the size is above 1 and the ranks meet through a rendezvous",
            "the secret every rank proves it holds (a variable only: a system property shows in ps)"),
    UNIQUE_ID(
            "COLLECTIVES_UNIQUE_ID",
            "collectives.uniqueId",
            "unset",
            "a unique id made elsewhere, instead of a rendezvous"),
    RENDEZVOUS_SERVER(
            "COLLECTIVES_RENDEZVOUS_SERVER",
            "collectives.rendezvousServer",
            "`rank0`",
            "who serves a tcp:// rendezvous: rank0 or standalone"),
    REPLACEMENT(
            "COLLECTIVES_REPLACEMENT",
            "collectives.replacement",
            "`0`",
            "1: this process joins a running job in the place of a rank that died"),
    JOINING(
            "COLLECTIVES_JOINING",
            "collectives.joining",
            "`0`",
            "1: this process joins a running job at its next growth"),
    PEERS(
            "COLLECTIVES_PEERS",
            "collectives.peers",
            "`foreign`",
            "with a unique id, whether every rank runs this library"),
    GATHER_SCATTER(
            "COLLECTIVES_GATHER_SCATTER",
            "collectives.gatherScatter",
            "`native`",
            "send-recv runs gather and scatter as a group of sends and receives"),
    DEVICE_SYNC_TIMEOUT(
            null,
            "collectives.device.syncTimeoutSeconds",
            "`300`",
            "how long any wait on the library lasts, in seconds"),
    DEVICE_BLOCKING(null, "collectives.device.blocking", "`false`", "true makes the default communicators blocking"),
    DEVICE_ABORT_TIMEOUT(
            null,
            "collectives.device.abortTimeoutSeconds",
            "`30`",
            "how long the library's abort may take, in seconds"),
    DEVICE_ABORT_POLICY(
            null,
            "collectives.device.abortPolicy",
            "`report`",
            "what an abort past its deadline does: report, or exit"),
    HANG_VERDICT(
            "COLLECTIVES_HANG_VERDICT",
            "collectives.hangVerdict",
            Settings.formatDuration(Settings.DEFAULT_HANG_VERDICT),
            "how long ranks wait in an entry another rank never enqueued before the server's hang verdict"),
    JOB_PAGE(
            "COLLECTIVES_JOB_PAGE",
            "collectives.jobPage",
            "off",
            "the loopback port of the job's live page and its metrics (0: any free one)"),
    DEVICE_CONNECT_AT_INIT(
            null,
            "collectives.device.connectAtInit",
            "unset",
            "true: peers connect when the communicator is made; unset, the library's default holds");

    /** The environment variable, or null where only a system property sets it. */
    public final String variable;
    /** The system property, or null where only a variable sets it (a secret). */
    public final String property;
    /** The default, as the guide's table gives it. */
    public final String byDefault;
    /** What it means, in short. */
    public final String meaning;

    Setting(String variable, String property, String byDefault, String meaning) {
        this.variable = variable;
        this.property = property;
        this.byDefault = byDefault;
        this.meaning = meaning;
    }

    /** Its names as the guide's table gives them: "`VARIABLE` / `property`", or the one it has. */
    public String names() {
        if (variable == null) {
            return "`" + property + "`";
        }
        return property == null ? "`" + variable + "`" : "`" + variable + "` / `" + property + "`";
    }
}
