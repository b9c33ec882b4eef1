package dev.collectives.runtime;

/**
 * A captured graph ({@code cudaGraph_t}/{@code musaGraph_t}). Buffers registered at capture stay registered until it is
 * closed (R5).
 */
public interface Graph extends AutoCloseable {
    /** {@code cudaGraphInstantiate}/{@code musaGraphInstantiate}. */
    GraphExec instantiate();

    /** {@code cudaGraphDestroy}/{@code musaGraphDestroy}; idempotent. */
    @Override
    void close();
}
