package dev.collectives.runtime.internal;

import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.FlightEvents;
import dev.collectives.runtime.spi.StepContext;
import java.lang.System.Logger.Level;
import jdk.jfr.Event;

/** Graph capture as generated GRAPH pipelines and {@link GraphCache} do it (R4). */
public final class Capture {
    private static final System.Logger LOG = System.getLogger(Lifecycle.BIND_LOGGER);

    private Capture() {}

    /**
     * Captures what {@code ops} issue on {@code stream} into a graph (R4): begin capture (thread-local mode), the
     * ops, end capture. If the ops fail, the capture is ended and its partial graph destroyed before rethrowing.
     * Captures are logged at {@code DEBUG} to {@value Lifecycle#BIND_LOGGER}; the calls captured for
     * {@code step} of {@code pipeline} are what the flight recorder shows inside its launches, and a JFR event
     * records the capture.
     */
    public static Graph capture(Communicator comm, Stream stream, String pipeline, String step, Runnable ops) {
        Event event = FlightEvents.captureStarted();
        stream.beginCapture();
        StepContext.captureStarted(comm);
        try {
            ops.run();
        } catch (RuntimeException | Error failure) {
            StepContext.captureEnded(comm, pipeline, step);
            if (stream.captureStatus() != Stream.CaptureStatus.NONE) {
                try {
                    stream.endCapture().close();
                } catch (RuntimeException endFailure) {
                    failure.addSuppressed(endFailure);
                }
            }
            throw failure;
        }
        int calls = StepContext.capturedCalls();
        StepContext.captureEnded(comm, pipeline, step);
        Graph graph = stream.endCapture();
        FlightEvents.captureDone(event, comm, pipeline, step, calls);
        LOG.log(Level.DEBUG, () -> "captured " + graph + " on " + stream);
        return graph;
    }
}
