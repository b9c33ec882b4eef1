package dev.collectives.runtime;

/**
 * This process's rank of a multi-process job, from {@link Backend#join}: its communicator and stream, its place in
 * the job and on its node, and its device. Closing it closes the stream, then the communicator; idempotent.
 */
public interface JoinedRank extends RankContext, AutoCloseable {
    /** This process's index among the job's processes on its node. */
    int localRank();

    /** The device ordinal this rank's communicator uses. */
    int device();

    @Override
    void close();
}
