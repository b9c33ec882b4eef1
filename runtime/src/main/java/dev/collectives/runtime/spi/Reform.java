package dev.collectives.runtime.spi;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import java.util.Arrays;

/**
 * What every backend's {@link Communicator#reform} says, in the same words: why a communicator is not reformed, and
 * the one line it logs (logger {@code dev.collectives.recovery}, INFO) once the survivors and the replacements of
 * the dead ranks formed the new one.
 */
public final class Reform {
    private static final System.Logger LOG = System.getLogger("dev.collectives.recovery");

    private Reform() {}

    /** Refuses to reform {@code survivor}, which is open: its ranks are alive, as far as it knows. */
    public static CollectivesException notAborted(Communicator survivor) {
        return CollectivesException.usage(
                survivor.rank(),
                "reform: " + survivor + " is not aborted: reform forms a communicator with the replacements of ranks"
                        + " that died, once their death aborted it (shrink leaves ranks out of an open communicator)");
    }

    /**
     * Refuses to reform {@code survivor}, which is not the communicator of a job of processes joined through a
     * {@code tcp://} rendezvous (its ranks are threads of one process, or it is a child of split or shrink).
     */
    public static CollectivesException notTheJobs(Communicator survivor) {
        return CollectivesException.usage(
                survivor.rank(),
                "reform: " + survivor + " cannot admit a replacement for a rank that died: only the communicator of"
                        + " a job of processes joined through a tcp:// rendezvous can (not one of threads of one"
                        + " process, nor a child of split or shrink)");
    }

    /**
     * Logs {@code reformed}, with the ranks {@code replaced}: "reform: nccl rank 2/3 on device 0 with the
     * replacements of ranks [1], formed through the job's rendezvous".
     */
    public static void logFor(Communicator reformed, int[] replaced) {
        LOG.log(
                System.Logger.Level.INFO,
                () -> "reform: " + reformed + " with the replacements of ranks " + Arrays.toString(replaced)
                        + ", formed through the job's rendezvous");
    }
}
