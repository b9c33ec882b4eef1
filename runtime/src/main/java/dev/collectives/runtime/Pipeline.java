package dev.collectives.runtime;

/** What every generated {@code Collective<Name>} class implements. */
public interface Pipeline extends AutoCloseable {
    /** A table of each op: its buffers, offsets, counts, and the registration path it gets and why. */
    String describe();

    /** Graphs first, then deregistration and windows, then memory. Idempotent. */
    @Override
    void close();
}
