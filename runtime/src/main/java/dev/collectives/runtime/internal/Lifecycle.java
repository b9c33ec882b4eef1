package dev.collectives.runtime.internal;

import dev.collectives.annotation.Registration;
import dev.collectives.rules.Message;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.FlightEvents;
import dev.collectives.runtime.spi.Recoveries;
import dev.collectives.runtime.spi.StepContext;
import java.lang.System.Logger.Level;
import jdk.jfr.Event;

/**
 * A generated pipeline's life: bind that closes what it made when it fails, close in the order R5 asks, and steps
 * refused once closed. Binds and failed binds are logged at {@code DEBUG} to the {@code System.Logger} named
 * {@value #BIND_LOGGER}, with each op's registration path ({@link Pipeline#describe()}).
 */
public final class Lifecycle {
    /** The logger of binds, registration paths and captures. */
    public static final String BIND_LOGGER = "dev.collectives.bind";

    private static final System.Logger LOG = System.getLogger(BIND_LOGGER);

    private Lifecycle() {}

    /**
     * Runs {@code open} on a freshly made {@code pipeline} ({@code name}, of {@code registration}) on {@code comm};
     * if it fails, closes what it made (the failure stays first, a close failure is attached to it) and rethrows.
     * A JFR bind event records it; a bind on a communicator a recovery made ends that recovery's event.
     */
    public static <P extends Pipeline> P open(
            Communicator comm, String name, Registration registration, P pipeline, Runnable open) {
        Event bind = FlightEvents.bindStarted();
        try {
            open.run();
            FlightEvents.bindDone(bind, comm, name, registration.name(), null);
            Recoveries.bound(comm, null);
            LOG.log(Level.DEBUG, () -> "bound " + pipeline.describe());
            return pipeline;
        } catch (RuntimeException | Error failure) {
            FlightEvents.bindDone(bind, comm, name, registration.name(), failure);
            Recoveries.bound(comm, failure);
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
                RuntimeException unchecked =
                        e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e);
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

    /**
     * A step of a LOCAL or NONE pipeline called after {@code close()}; else the step begins: the calls this thread
     * issues on {@code comm} until {@link #stepDone} are the step's, for the flight recorder.
     */
    public static void requireOpen(Communicator comm, String pipeline, boolean closed, String step) {
        checkOpen(comm, pipeline, closed, step);
        StepContext.enter(comm, pipeline, step, false);
    }

    /** A step called after {@code close()}, checked again by what the step calls ({@link CallCheck}). */
    static void checkOpen(Communicator comm, String pipeline, boolean closed, String step) {
        if (closed) {
            throw CollectivesException.usage(
                    comm.rank(), "pipeline " + pipeline + " is closed: " + step + "() called after close()");
        }
    }

    /**
     * A step of a GRAPH pipeline called after {@code close()}: replaying it would touch freed buffers (R5); else the
     * step begins, and its graph's launch is one entry of the flight recorder at {@link #stepDone}.
     */
    public static void requireOpenForReplay(Communicator comm, String pipeline, boolean closed, String step) {
        checkOpenForReplay(comm, pipeline, closed, step);
        StepContext.enter(comm, pipeline, step, true);
    }

    /** {@link #requireOpenForReplay}'s check alone, for what the step calls ({@link GraphCache}). */
    static void checkOpenForReplay(Communicator comm, String pipeline, boolean closed, String step) {
        if (closed) {
            throw CollectivesException.violation(Message.R5_CLOSED, comm.rank(), pipeline, step);
        }
    }

    /**
     * The step that {@link #requireOpen} or {@link #requireOpenForReplay} began issued its calls on {@code stream}:
     * the JFR step event. (The backend records a GRAPH step's launch as it launches the graph.)
     */
    public static void stepDone(Communicator comm, Stream stream) {
        StepContext.leave(comm);
    }
}
