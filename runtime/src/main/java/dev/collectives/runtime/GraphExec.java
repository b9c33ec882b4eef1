package dev.collectives.runtime;

/** An instantiated graph ({@code cudaGraphExec_t}/{@code musaGraphExec_t}). */
public interface GraphExec extends AutoCloseable {
    /** {@code cudaGraphLaunch}/{@code musaGraphLaunch}: replays the captured ops on {@code stream}. */
    void launch(Stream stream);

    /** {@code cudaGraphExecDestroy}/{@code musaGraphExecDestroy}; idempotent. */
    @Override
    void close();
}
