package dev.collectives.runtime.spi;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.FlightRecord.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * The step a thread is in, as generated code says through {@code runtime.internal} ({@code Lifecycle},
 * {@code CallCheck}, {@code Capture}): which pipeline and step the calls it issues belong to, for the
 * {@link FlightRecorder}, and the step's JFR event. One mutable object per thread, so entering a step allocates
 * nothing.
 */
public final class StepContext {
    private static final ThreadLocal<StepContext> CURRENT = ThreadLocal.withInitial(StepContext::new);

    private Communicator comm;
    private String pipeline;
    private String step;
    private boolean graph;
    private long[] arguments;
    private int op;
    private boolean checkingCall;
    private FlightEvents.StepEvent event;
    /** The communicator a capture is for, and the calls it issued so far; null outside a capture. */
    private Communicator capturing;

    private List<String> captured;

    private StepContext() {}

    static StepContext current() {
        return CURRENT.get();
    }

    /**
     * This thread enters {@code stepName} of {@code pipelineName} on {@code on}; {@code replay} for a GRAPH step,
     * whose graph's launch the recorder keeps as one entry.
     */
    public static void enter(Communicator on, String pipelineName, String stepName, boolean replay) {
        StepContext context = CURRENT.get();
        context.comm = on;
        context.pipeline = pipelineName;
        context.step = stepName;
        context.graph = replay;
        context.arguments = null;
        context.op = 0;
        context.checkingCall = false;
        context.event = FlightEvents.stepStarted();
    }

    /** The step this thread is in was called with {@code args} (they are kept, not copied). */
    public static void arguments(long[] args) {
        CURRENT.get().arguments = args;
    }

    /** Whether the calls this thread issues now check the step's arguments across ranks, rather than do its ops. */
    public static void checkingCall(boolean checking) {
        CURRENT.get().checkingCall = checking;
    }

    /**
     * The step this thread is in on {@code comm} returned: the step's JFR event is committed. (A GRAPH step's launch
     * is an entry of the communicator's recorder already: the backend made it as it launched the graph.)
     */
    public static void leave(Communicator comm) {
        StepContext context = CURRENT.get();
        if (context.comm != comm) {
            return;
        }
        FlightEvents.stepDone(context.event, comm, context.pipeline, context.step, context.graph);
        context.event = null;
        context.comm = null;
    }

    /** This thread starts capturing calls on {@code on} into a graph. */
    public static void captureStarted(Communicator on) {
        StepContext context = CURRENT.get();
        context.capturing = on;
        context.captured = new ArrayList<>();
    }

    /** The capture this thread made for {@code stepName} of {@code pipelineName} ended. */
    public static void captureEnded(Communicator on, String pipelineName, String stepName) {
        StepContext context = CURRENT.get();
        if (context.capturing == on) {
            FlightRecorder.of(on).ifPresent(r -> r.captured(pipelineName, stepName, context.captured));
        }
        context.capturing = null;
        context.captured = null;
    }

    /** How many calls the last capture on this thread issued so far (for its JFR event). */
    public static int capturedCalls() {
        List<String> calls = CURRENT.get().captured;
        return calls == null ? 0 : calls.size();
    }

    void captured(Communicator on, String call, long count, DataType type, int peer) {
        if (capturing == on) {
            captured.add(call + "(" + count + " x " + type + (peer >= 0 ? ", peer/root " + peer : "") + ")");
        }
    }

    boolean isFor(Communicator on) {
        return comm == on;
    }

    /** Whether this thread is in a GRAPH step on {@code on}, whose graph's launch the recorder keeps. */
    boolean isReplayFor(Communicator on) {
        return comm == on && graph;
    }

    String pipeline() {
        return pipeline;
    }

    String step() {
        return step;
    }

    long[] arguments() {
        return arguments;
    }

    /** The number of the next call of the step, or {@link Entry#CALL_CHECK} while the step checks its call. */
    int nextOp() {
        return checkingCall ? Entry.CALL_CHECK : op++;
    }
}
