package dev.collectives.tools.faults;

import dev.collectives.annotation.Registration;
import dev.collectives.examples.ClusterOptions;
import dev.collectives.examples.pipelines.Death;
import dev.collectives.runtime.Backends;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The tools' {@code faults} command: see {@link FaultJobs}. */
@Command(
        name = "faults",
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Proves the failure paths of jobs of processes: for each rank count N, registration mode and "
                    + "fault, starts N processes, one per rank (on sim too), that bind a one-allreduce pipeline of the mode and run its "
                    + "steps, each waited for and checked. At step " + FaultRankCommand.FAULT_STEP
                    + " the culprit, rank "
                    + "N-1, commits the fault; every other rank's step must then fail, naming the culprit and the cause, "
                    + "and for silent and shapes 'trace' on the ranks' flight records (in the job's logs, under flight/) "
                    + "must name the culprit too. "
                    + "The culprit is never rank 0: its process serves the rendezvous, and its death ends the job on every "
                    + "rank alike. Prints per rank count a table (mode x fault: OK or NOT OK), a summary line, and for a "
                    + "job not OK what each other rank printed and where its log is.",
            "The faults: kill: the culprit " + Fault.KILL_DOES + "; abort: it " + Fault.ABORT_DOES + "; silent: it "
                    + Fault.SILENT_DOES + "; shapes: it " + Fault.SHAPES_DOES + ".",
            "With more ranks than GPUs, the processes share the GPUs round-robin, each with its own NCCL_HOSTID (a "
                    + "setup for testing behaviour only, never speed)."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every job failed as expected",
            "1:a job did not (a rank ran on, hung, failed otherwise, or " + "without naming the culprit and the cause)",
            "2:a bad command line, or an unknown or unavailable backend"
        })
public final class FaultsCommand implements Callable<Integer> {
    private final PrintStream out;

    /** The backend, and the rank counts, each at least 2. */
    @Mixin
    ClusterOptions cluster = new ClusterOptions(Backends.DEFAULT, "2,4,8");

    @Option(
            names = "--devices",
            paramLabel = "G",
            description = "the GPUs the processes share, round-robin; " + "default: 1")
    int devices = 1;

    @Option(
            names = "--modes",
            paramLabel = "MODE",
            split = ",",
            description = "the registration modes; default: " + "NONE,LOCAL,GRAPH")
    List<Registration> modes = List.of(Registration.NONE, Registration.LOCAL, Registration.GRAPH);

    @Option(
            names = "--faults",
            paramLabel = "FAULT",
            split = ",",
            description = "the faults; default: " + "kill,abort,silent,shapes")
    List<Fault> faults = List.of(Fault.values());

    @Option(
            names = "--recoveries",
            paramLabel = "RECOVERY",
            split = ",",
            converter = Recovery.Parser.class,
            description = "after the faults, at each rank count and in each mode, rank N/2 is killed in step 2 and "
                    + "the survivors shrink it away (shrink), or reform the job with a process started in its place "
                    + "(replace; the command recovery --replace); or rank 0 is killed, the rendezvous "
                    + "served by this process, and the survivors shrink it away (rank-0); default: "
                    + "shrink,replace,rank-0")
    List<Recovery> recoveries = List.of(Recovery.values());

    @Option(
            names = "--death",
            paramLabel = "HOW",
            converter = Death.Parser.class,
            description = "how the rank of each recovery dies: halt (it halts its process as its step 2 begins), "
                    + "kill (this process sends it SIGKILL at a random moment after "
                    + Death.READY_AFTER
                    + " steps, mid-step) or freeze (SIGSTOP at such a moment: the survivors declare it dead when its "
                    + "heartbeats stop, after "
                    + RecoveryJobs.FREEZE_HEARTBEAT_SECONDS
                    + " s here; once they did, SIGCONT, and it must fail saying it was excluded); default: halt")
    Death death = Death.HALT;

    @Option(names = "--out", paramLabel = "DIR", description = "where each process's log goes; default: faults-logs")
    Path logs = Path.of("faults-logs");

    @Option(
            names = "--job-timeout",
            paramLabel = "SECONDS",
            description = "how long the other ranks of a job may " + "take to fail; default: 180")
    long jobTimeout = 180;

    @Option(
            names = "--sim-timeout",
            paramLabel = "SECONDS",
            description = "on sim, how long a rank waits for the "
                    + "others in a call (COLLECTIVES_SIM_TIMEOUT), which bounds the silent fault; default: 5")
    long simTimeout = 5;

    @Option(
            names = "--sync-timeout",
            paramLabel = "SECONDS",
            description = "on nccl and mccl, how long a "
                    + "synchronize waits before it aborts the communicator (-Dcollectives.device.syncTimeoutSeconds), which "
                    + "bounds the silent fault; default: 10")
    long syncTimeout = 10;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "show this help, and exit")
    boolean help;

    public FaultsCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        List<Integer> counts = cluster.ranks().counts();
        if (counts.stream().anyMatch(n -> n < 2) || devices < 1) {
            throw new IllegalArgumentException("--ranks needs counts of at least 2 and --devices at least 1");
        }
        if (jobTimeout < 1 || simTimeout < 1 || syncTimeout < 1) {
            throw new IllegalArgumentException("--job-timeout, --sim-timeout and --sync-timeout need at least 1 s");
        }
        FaultJobs.Settings settings = new FaultJobs.Settings(
                cluster.backend().get().name(),
                counts,
                devices,
                modes.stream().distinct().toList(),
                faults.stream().distinct().toList(),
                recoveries.stream().distinct().toList(),
                death,
                logs,
                Duration.ofSeconds(jobTimeout),
                Duration.ofSeconds(simTimeout),
                Duration.ofSeconds(syncTimeout));
        return new FaultJobs(settings, out).run();
    }
}
