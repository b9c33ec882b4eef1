package dev.collectives.runtime.spi;

import dev.collectives.runtime.Communicator;
import java.util.function.Supplier;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.Timestamp;

/**
 * The JDK Flight Recorder events of the library, in the category {@value #CATEGORY}: bind, graph capture,
 * registration and step, each with its duration on the host, failure and abort, and recovery (its phases,
 * {@link Recoveries}). Each is built only when
 * JFR records it ({@code shouldCommit()}), so that with JFR off they cost a check of a flag. The runtime ships
 * {@code dev/collectives/runtime/collectives.jfc}, which enables them all.
 */
public final class FlightEvents {
    /** The JFR category of every event. */
    public static final String CATEGORY = "Collectives";

    private FlightEvents() {}

    @Name("dev.collectives.Bind")
    @Label("Bind")
    @Category(CATEGORY)
    @Description("A pipeline's bind: allocation, registration, agreement across ranks, captures")
    @StackTrace(false)
    static final class BindEvent extends Event {
        @Label("Pipeline")
        String pipeline;

        @Label("Registration")
        String registration;

        @Label("Rank")
        int rank;

        @Label("Backend")
        String backend;

        @Label("Failure")
        String failure;
    }

    @Name("dev.collectives.GraphCapture")
    @Label("Graph Capture")
    @Category(CATEGORY)
    @Description("The capture of a GRAPH step's calls into a graph")
    @StackTrace(false)
    static final class CaptureEvent extends Event {
        @Label("Pipeline")
        String pipeline;

        @Label("Step")
        String step;

        @Label("Rank")
        int rank;

        @Label("Backend")
        String backend;

        @Label("Calls")
        int calls;
    }

    @Name("dev.collectives.Registration")
    @Label("Registration")
    @Category(CATEGORY)
    @Description("A buffer registered with the communicator (CommRegister) or as a window (CommWindowRegister)")
    @StackTrace(false)
    static final class RegistrationEvent extends Event {
        @Label("Rank")
        int rank;

        @Label("Backend")
        String backend;

        @Label("Registration Path")
        String path;

        @Label("Bytes")
        long bytes;
    }

    @Name("dev.collectives.Step")
    @Label("Step")
    @Category(CATEGORY)
    @Description("One call of a pipeline's step on the host: its calls issued, or its graph launched")
    @StackTrace(false)
    static final class StepEvent extends Event {
        @Label("Pipeline")
        String pipeline;

        @Label("Step")
        String step;

        @Label("Rank")
        int rank;

        @Label("Backend")
        String backend;

        @Label("Graph")
        boolean graph;
    }

    @Name("dev.collectives.Failure")
    @Label("Failure")
    @Category(CATEGORY)
    @Description("A synchronize failed: a peer failed, the job ended or the wait timed out")
    static final class FailureEvent extends Event {
        @Label("Rank")
        int rank;

        @Label("Backend")
        String backend;

        @Label("Message")
        String message;

        @Label("Position")
        @Description("The rank's last enqueued and last completed operation")
        String position;
    }

    @Name("dev.collectives.Abort")
    @Label("Abort")
    @Category(CATEGORY)
    @Description("A communicator aborted on this rank")
    static final class AbortEvent extends Event {
        @Label("Rank")
        int rank;

        @Label("Backend")
        String backend;

        @Label("Position")
        @Description("The rank's last enqueued and last completed operation")
        String position;
    }

    @Name("dev.collectives.Recovery")
    @Label("Recovery")
    @Category(CATEGORY)
    @Description("A rank recovered from failed ranks, or failed to: from its shrink or reform call to its first bind on"
            + " the new communicator (or the new communicator's close, or the recovery's failure)")
    @StackTrace(false)
    static final class RecoveryEvent extends Event {
        @Label("Kind")
        @Description("shrink or replace")
        String kind;

        @Label("Outcome")
        @Description("recovered or failed")
        String outcome;

        @Label("Failure")
        String failure;

        @Label("Rank")
        int rank;

        @Label("Ranks")
        int ranks;

        @Label("New Ranks")
        @Description("The new communicator's size; 0 when none formed")
        int newRanks;

        @Label("Excluded Ranks")
        String excluded;

        @Label("Heard At")
        @Description("When this rank heard of the failure (its communicator aborted); absent where it heard of none")
        @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH)
        long heardAt;

        @Label("Heard To Communicator")
        @Description("From hearing of the failure (or from the call, where none was heard) to the new communicator")
        @Timespan(Timespan.NANOSECONDS)
        long heardToCommunicator;

        @Label("Bound")
        @Description("Whether a pipeline was bound on the new communicator before it closed")
        boolean bound;

        @Label("Communicator To Bound")
        @Description("From the new communicator to the end of the first bind on it")
        @Timespan(Timespan.NANOSECONDS)
        long communicatorToBound;

        /** When the new communicator formed ({@link System#nanoTime()}): the start of the bind phase. */
        transient long formedNanos;
    }

    /** A bind begins: its event, or null when JFR does not record it. */
    public static Event bindStarted() {
        return started(new BindEvent());
    }

    /** The bind {@link #bindStarted} began ended, with {@code failure} or null. */
    public static void bindDone(
            Event started, Communicator comm, String pipeline, String registration, Throwable failure) {
        if (started instanceof BindEvent event && event.shouldCommit()) {
            event.pipeline = pipeline;
            event.registration = registration;
            event.rank = comm.rank();
            event.backend = comm.backendName();
            event.failure = failure == null ? null : failure.getMessage();
            event.commit();
        }
    }

    /** A capture begins: its event, or null when JFR does not record it. */
    public static Event captureStarted() {
        return started(new CaptureEvent());
    }

    /** The capture {@link #captureStarted} began ended, having captured {@code calls} calls. */
    public static void captureDone(Event started, Communicator comm, String pipeline, String step, int calls) {
        if (started instanceof CaptureEvent event && event.shouldCommit()) {
            event.pipeline = pipeline;
            event.step = step;
            event.rank = comm.rank();
            event.backend = comm.backendName();
            event.calls = calls;
            event.commit();
        }
    }

    /** A registration begins: its event, or null when JFR does not record it. */
    public static Event registrationStarted() {
        return started(new RegistrationEvent());
    }

    /** The registration {@link #registrationStarted} began ended: {@code path} is the library's function. */
    public static void registrationDone(Event started, Communicator comm, String path, long bytes) {
        if (started instanceof RegistrationEvent event && event.shouldCommit()) {
            event.rank = comm.rank();
            event.backend = comm.backendName();
            event.path = comm.libraryFunction(path);
            event.bytes = bytes;
            event.commit();
        }
    }

    static StepEvent stepStarted() {
        return started(new StepEvent());
    }

    static void stepDone(StepEvent event, Communicator comm, String pipeline, String step, boolean graph) {
        if (event != null && event.shouldCommit()) {
            event.pipeline = pipeline;
            event.step = step;
            event.rank = comm.rank();
            event.backend = comm.backendName();
            event.graph = graph;
            event.commit();
        }
    }

    static void failed(int rank, String backend, String message, Supplier<String> position) {
        FailureEvent event = new FailureEvent();
        if (event.shouldCommit()) {
            event.rank = rank;
            event.backend = backend;
            event.message = message;
            event.position = position.get();
            event.commit();
        }
    }

    static void aborted(int rank, String backend, Supplier<String> position) {
        AbortEvent event = new AbortEvent();
        if (event.shouldCommit()) {
            event.rank = rank;
            event.backend = backend;
            event.position = position.get();
            event.commit();
        }
    }

    /** {@code event} begun, if JFR records its kind; else null, so that nothing more is spent on it. */
    private static <E extends Event> E started(E event) {
        if (!event.isEnabled()) {
            return null;
        }
        event.begin();
        return event;
    }
}
