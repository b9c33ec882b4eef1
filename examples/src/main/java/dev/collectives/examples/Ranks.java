package dev.collectives.examples;

import dev.collectives.runtime.Backend;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.LocalCluster.RankBody;
import java.time.Duration;
import java.util.stream.IntStream;

/**
 * Where the runner runs an example's (or a mistake's) body: on every rank of a fresh cluster of this process, or on
 * this process's one rank of a multi-process job, whose other ranks run and report in their own processes.
 */
interface Ranks {
    /** The number of ranks taking part. */
    int size();

    /** The ranks whose outcome this process sees, in order: all of a local cluster, or its own rank of a job. */
    int[] held();

    /** For the heading: "4 rank(s)", or "rank 2 of 4 (local rank 2, device 2)". */
    String describe();

    /**
     * Runs {@code body} on the held ranks; throws a {@link CollectivesException} naming the first rank that failed.
     * {@code spec} and {@code timeout} configure a fresh sim cluster; a joined rank has the job's.
     */
    void run(ClusterSpec spec, Duration timeout, RankBody body);

    /** {@code size} ranks of {@code backend}, each body on a fresh cluster of them. */
    static Ranks local(Backend backend, int size) {
        return new Local(backend, size);
    }

    /** This process's rank of a job. */
    static Ranks joined(JoinedRank rank) {
        return new Joined(rank);
    }

    /** Threads of this process. */
    record Local(Backend backend, int size) implements Ranks {
        @Override
        public int[] held() {
            return IntStream.range(0, size).toArray();
        }

        @Override
        public String describe() {
            return size + " rank(s)";
        }

        @Override
        public void run(ClusterSpec spec, Duration timeout, RankBody body) {
            try (LocalCluster cluster = Clusters.open(backend, spec, size, timeout)) {
                cluster.run(body);
            }
        }
    }

    /** One rank of a job, the others in other processes. */
    record Joined(JoinedRank rank) implements Ranks {
        @Override
        public int size() {
            return rank.size();
        }

        @Override
        public int[] held() {
            return new int[] {rank.rank()};
        }

        @Override
        public String describe() {
            return "rank " + rank.rank() + " of " + rank.size() + " (local rank " + rank.localRank() + ", device "
                    + rank.device() + ")";
        }

        /** A failure is wrapped as a local cluster wraps it, so that the runner reports both alike. */
        @Override
        public void run(ClusterSpec spec, Duration timeout, RankBody body) {
            try {
                body.run(rank);
            } catch (Exception e) {
                throw CollectivesException.rankFailed(rank.rank(), e);
            }
        }
    }
}
