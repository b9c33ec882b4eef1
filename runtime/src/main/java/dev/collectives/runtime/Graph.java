package dev.collectives.runtime;

/** A captured graph ({@code musaGraph_t}). Buffers registered at capture stay registered until it is closed (R5). */
public interface Graph extends AutoCloseable {
    /** {@code musaGraphInstantiate}. */
    GraphExec instantiate();

    /** {@code musaGraphDestroy}; idempotent. */
    @Override
    void close();
}
