package dev.collectives.runtime;

/** What one rank's body sees: its communicator and stream. */
public interface RankContext {
    Communicator comm();

    Stream stream();

    int rank();

    int size();
}
