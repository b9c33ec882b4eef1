package dev.collectives.runtime;

/** A device stream: ordered asynchronous work, and graph capture. */
public interface Stream extends AutoCloseable {
    /** Waits until all work enqueued so far has finished; rethrows the first failure of that work. */
    void synchronize();

    /** {@code musaStreamBeginCapture(stream, musaStreamCaptureModeThreadLocal)} (R4). */
    void beginCapture();

    /** {@code musaStreamEndCapture}: the captured work as a graph. */
    Graph endCapture();

    /** Whether the stream is capturing (R4). */
    CaptureStatus captureStatus();

    @Override
    void close();

    /** {@code musaStreamCaptureStatus}. */
    enum CaptureStatus {
        /** Not capturing. */
        NONE,
        /** Capturing: work is recorded into a graph, not run. */
        ACTIVE,
        /** The capture failed; end it and discard the graph. */
        INVALIDATED
    }
}
