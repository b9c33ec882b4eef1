package dev.collectives.runtime;

/** An instantiated graph ({@code musaGraphExec_t}). */
public interface GraphExec extends AutoCloseable {
    /** {@code musaGraphLaunch}: replays the captured ops on {@code stream}. */
    void launch(Stream stream);

    /** {@code musaGraphExecDestroy}; idempotent. */
    @Override
    void close();
}
