package dev.collectives.runtime;

/** n ranks on this host, each with its communicator and stream. Closing it destroys them. */
public interface LocalCluster extends AutoCloseable {
    /** The number of ranks. */
    int size();

    /**
     * Runs {@code body} once per rank, each in its own thread, and returns when all have finished. If any rank
     * throws, the others are released (their communicators aborted) and a {@link CollectivesException} naming the
     * first failing rank is thrown, with the other ranks' failures suppressed.
     */
    void run(RankBody body);

    @Override
    void close();

    /** The code each rank runs. */
    @FunctionalInterface
    interface RankBody {
        /** Runs one rank's part, on that rank's thread. */
        void run(RankContext rank) throws Exception;
    }
}
