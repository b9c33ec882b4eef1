package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.LocalCluster;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The ranks of a test that runs here: every rank, as threads of a {@link LocalCluster}; or, in a JVM that {@link
 * ProcessPerRankExtension} started as one rank, this process's {@link JoinedRank} (the job's other ranks run the same test in
 * their processes). A test's assertions are per rank, in the body it runs on each, or over {@link #here()}.
 */
public final class TestRanks implements AutoCloseable {
    private final LocalCluster cluster;
    private final JoinedRank joined;

    private TestRanks(LocalCluster cluster, JoinedRank joined) {
        this.cluster = cluster;
        this.joined = joined;
    }

    /** {@code threads} here, or this process's rank, which {@code join} makes from the launcher's variables. */
    public static TestRanks open(Supplier<LocalCluster> threads, Function<Bootstrap, JoinedRank> join) {
        return ProcessPerRankExtension.isRankProcess()
                ? new TestRanks(null, join.apply(Bootstrap.fromEnvironment()))
                : new TestRanks(threads.get(), null);
    }

    /**
     * Runs {@code body} on every rank here and returns when all have ended; throws as {@link LocalCluster#run} does.
     * A rank of a process whose body throws aborts its communicator first, as the cluster does when one of its
     * ranks fails, so that the ranks in other processes fail instead of waiting for it.
     */
    public void run(LocalCluster.RankBody body) {
        if (cluster != null) {
            cluster.run(body);
            return;
        }
        try {
            body.run(joined);
        } catch (Throwable failure) {
            try {
                joined.comm().abort();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
            throw CollectivesException.ranksFailed(List.of(Map.entry(joined.rank(), failure)));
        }
    }

    /** The ranks that run here, in order. */
    public IntStream here() {
        return cluster != null ? IntStream.range(0, cluster.size()) : IntStream.of(joined.rank());
    }

    /** The cluster, or this process's stream and communicator. */
    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
        } else {
            joined.close();
        }
    }
}
