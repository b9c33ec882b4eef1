package dev.collectives.runtime.internal;

import dev.collectives.rules.Message;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Pipeline;

import java.lang.System.Logger.Level;

/**
 * A generated pipeline's life: bind that closes what it made when it fails, close in the order R5 asks, and steps
 * refused once closed. Binds and failed binds are logged at {@code DEBUG} to the {@code System.Logger} named
 * {@value #BIND_LOGGER}, with each op's registration path ({@link Pipeline#describe()}).
 */
public final class Lifecycle {
    /** The logger of binds, registration paths and captures. */
    public static final String BIND_LOGGER = "dev.collectives.bind";
    private static final System.Logger LOG = System.getLogger(BIND_LOGGER);

    private Lifecycle() {
    }

    /**
     * Runs {@code open} on a freshly made {@code pipeline}; if it fails, closes what it made (the failure stays
     * first, a close failure is attached to it) and rethrows.
     */
    public static <P extends Pipeline> P open(P pipeline, Runnable open) {
        try {
            open.run();
            LOG.log(Level.DEBUG, () -> "bound " + pipeline.describe());
            return pipeline;
        } catch (RuntimeException | Error failure) {
            LOG.log(Level.DEBUG, "bind failed: " + failure.getMessage(), failure);
            try {
                pipeline.close();
            } catch (RuntimeException closeFailure) {
                failure.addSuppressed(closeFailure);
            }
            throw failure;
        }
    }

    /**
     * Closes each resource that was made (null ones were not), in the order given: graphs before their buffers
     * (R5). Every one is tried; the first failure is thrown at the end with the later ones attached.
     */
    public static void closeInOrder(AutoCloseable... resources) {
        RuntimeException failure = null;
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                RuntimeException unchecked = e instanceof RuntimeException ? (RuntimeException) e
                        : new IllegalStateException(e);
                if (failure == null) {
                    failure = unchecked;
                } else {
                    failure.addSuppressed(unchecked);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** A step of a LOCAL or NONE pipeline called after {@code close()}. */
    public static void requireOpen(Communicator comm, String pipeline, boolean closed, String step) {
        if (closed) {
            throw CollectivesException.usage(comm.rank(), "pipeline " + pipeline + " is closed: " + step
                    + "() called after close()");
        }
    }

    /** A step of a GRAPH pipeline called after {@code close()}: replaying it would touch freed buffers (R5). */
    public static void requireOpenForReplay(Communicator comm, String pipeline, boolean closed, String step) {
        if (closed) {
            throw CollectivesException.violation(Message.R5_CLOSED, comm.rank(), pipeline, step);
        }
    }
}
