package dev.collectives.runtime.internal;

import dev.collectives.runtime.Graph;
import dev.collectives.runtime.Stream;

import java.lang.System.Logger.Level;

/** Graph capture as generated GRAPH pipelines and {@link GraphCache} do it (R4). */
public final class Capture {
    private static final System.Logger LOG = System.getLogger(Lifecycle.BIND_LOGGER);

    private Capture() {
    }

    /**
     * Captures what {@code ops} issue on {@code stream} into a graph (R4): begin capture (thread-local mode), the
     * ops, end capture. If the ops fail, the capture is ended and its partial graph destroyed before rethrowing.
     * Captures are logged at {@code DEBUG} to {@value Lifecycle#BIND_LOGGER}.
     */
    public static Graph capture(Stream stream, Runnable ops) {
        stream.beginCapture();
        try {
            ops.run();
        } catch (RuntimeException | Error failure) {
            if (stream.captureStatus() != Stream.CaptureStatus.NONE) {
                try {
                    stream.endCapture().close();
                } catch (RuntimeException endFailure) {
                    failure.addSuppressed(endFailure);
                }
            }
            throw failure;
        }
        Graph graph = stream.endCapture();
        LOG.log(Level.DEBUG, () -> "captured " + graph + " on " + stream);
        return graph;
    }
}
