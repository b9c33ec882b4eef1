package dev.collectives.runtime;

/**
 * A device stream: ordered asynchronous work, and graph capture. A stream made by
 * {@link Communicator#createStream()} is destroyed by {@link #close()}; one made by
 * {@link Communicator#wrapStream(long)} belongs to whoever created it, and its {@code close()} destroys nothing.
 */
public interface Stream extends AutoCloseable {
    /** Waits until all work enqueued so far has finished; rethrows the first failure of that work. */
    void synchronize();

    /**
     * {@code cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal)} (the {@code musa} functions likewise)
     * (R4).
     */
    void beginCapture();

    /** {@code cudaStreamEndCapture}/{@code musaStreamEndCapture}: the captured work as a graph. */
    Graph endCapture();

    /** Whether the stream is capturing (R4). */
    CaptureStatus captureStatus();

    // ---- interop: handles and events ----------------------------------------------------------------------

    /** The native handle ({@code cudaStream_t}/{@code musaStream_t} as an address), for a framework to use. */
    long handle();

    /** Records an event after the work enqueued so far ({@code cudaEventRecord}); not while capturing. */
    Event record();

    /** Orders the work enqueued after this call after {@code event} ({@code cudaStreamWaitEvent}). */
    void waitFor(Event event);

    @Override
    void close();

    /** {@code cudaStreamCaptureStatus}/{@code musaStreamCaptureStatus}. */
    enum CaptureStatus {
        /** Not capturing. */
        NONE,
        /** Capturing: work is recorded into a graph, not run. */
        ACTIVE,
        /** The capture failed; end it and discard the graph. */
        INVALIDATED
    }
}
