package dev.collectives.runtime;

/** What one rank's body sees: its communicator and stream. */
public interface RankContext {
    /** This rank's communicator. */
    Communicator comm();

    /** This rank's stream. */
    Stream stream();

    /** This rank, from 0 to {@code size() - 1}. */
    int rank();

    /** The number of ranks. */
    int size();
}
