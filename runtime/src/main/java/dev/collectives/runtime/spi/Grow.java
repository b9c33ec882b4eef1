package dev.collectives.runtime.spi;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;

/**
 * What every backend's {@link Communicator#grow} says, in the same words: why a communicator does not grow, and the
 * one line it logs (logger {@code dev.collectives.recovery}, INFO) once the ranks and the processes that joined
 * formed the new one.
 */
public final class Grow {
    private static final System.Logger LOG = System.getLogger("dev.collectives.recovery");

    private Grow() {}

    /** Refuses to grow {@code member} by {@code added}, fewer than 1. */
    public static CollectivesException notPositive(Communicator member, int added) {
        return CollectivesException.usage(
                member.rank(), "grow: a job grows by 1 process or more, not " + added + " (" + member + ")");
    }

    /** Refuses to grow {@code member}, which was aborted: a rank died, or it was aborted on purpose. */
    public static CollectivesException aborted(Communicator member) {
        return CollectivesException.usage(
                member.rank(),
                "grow: " + member + " is aborted (a rank died, or it was aborted): a job grows from a communicator"
                        + " whose ranks are all alive; shrink the dead ranks away or reform first, then grow");
    }

    /**
     * Refuses to grow {@code member}, which is not the communicator of a job of processes joined through a
     * {@code tcp://} rendezvous, nor one that its survivors shrank or grew (its ranks are threads of one process, or
     * a split made it: it holds a part of the job).
     */
    public static CollectivesException notTheJobs(Communicator member) {
        return CollectivesException.usage(
                member.rank(),
                "grow: " + member + " cannot take in processes that join: only the communicator of a job of"
                        + " processes joined through a tcp:// rendezvous can, or one that its survivors shrank or grew"
                        + " (not one of threads of one process, nor a child of split, which holds a part of the job)");
    }

    /** Logs {@code grown}, {@code before} ranks before: "grow: sim rank 0/4 from 2 ranks, formed through the job's rendezvous". */
    public static void logFor(Communicator grown, int before, String path) {
        LOG.log(System.Logger.Level.INFO, () -> "grow: " + grown + " from " + before + " ranks, formed " + path);
    }
}
