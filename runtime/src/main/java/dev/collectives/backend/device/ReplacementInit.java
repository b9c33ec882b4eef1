package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.bootstrap.Rendezvous;
import java.time.Duration;
import java.util.Arrays;

/**
 * A reform after ranks died: the survivors meet, through the job's rendezvous, the processes started in the places
 * of the dead ranks ({@link Rendezvous#reunite}), and all of them form a communicator of the job's size as they
 * joined it ({@link DeviceJoin#form}: a new unique id of rank 0, {@code CommInitRank(Config)} with the config the
 * survivors joined with). The replacements come the same way through {@link DeviceJoin#join}. The new communicator
 * takes the job over: it watches it, and leaves it when it closes.
 */
final class ReplacementInit {
    private static final System.Logger LOG = System.getLogger("dev.collectives.recovery");

    private ReplacementInit() {}

    /** {@code survivor}'s communicator with the replacements, joined with {@code config}; waits up to {@code timeout}. */
    static DeviceCommunicator reform(DeviceCommunicator survivor, CommConfig config, Duration timeout) {
        int rank = survivor.rank();
        NativeComm handle = survivor.nativeComm();
        if (!handle.isAborted()) {
            throw CollectivesException.usage(
                    rank,
                    "reform: " + survivor + " is not aborted: reform forms a communicator with the replacements of"
                            + " ranks that died, once their death aborted it (shrink leaves ranks out of an open"
                            + " communicator)");
        }
        Rendezvous rendezvous = handle.survivorsRendezvous("reform");
        int[] replaced;
        DeviceCommunicator reformed;
        try {
            replaced = rendezvous.reunite(timeout);
            reformed =
                    DeviceJoin.form(survivor.library(), rendezvous, rank, survivor.size(), survivor.device(), config);
        } catch (RuntimeException e) {
            rendezvous.close();
            throw e;
        }
        handle.handOverJob();
        reformed.watchJob(rendezvous, config);
        LOG.log(
                System.Logger.Level.INFO,
                () -> "reform: " + reformed + " with the replacements of ranks " + Arrays.toString(replaced)
                        + ", formed through the job's rendezvous");
        return reformed;
    }
}
