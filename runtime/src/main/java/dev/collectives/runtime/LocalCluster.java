package dev.collectives.runtime;

/** n ranks on this host, each with its communicator and stream. Closing it destroys them. */
public interface LocalCluster extends AutoCloseable {
    /** The number of ranks. */
    int size();

    /**
     * Runs {@code body} once per rank, each in its own thread, and returns when all have finished. If any rank
     * throws, the others are released (their communicators aborted) and one {@link CollectivesException} is thrown
     * with a line per failed rank ({@link CollectivesException#ranksFailed}): the first failing rank's rule and rank,
     * its failure as the cause and the other ranks' suppressed.
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
