package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.RendezvousServer;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.JobRanks;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which communicators of a watched job a failure aborts, over a real TCP rendezvous of 4 ranks (threads of this JVM),
 * on both hostings of its server (rank 0's process, and a process of its own): it is read from the ranks the failure
 * blames, never from its words, which on the default hosting begin with rank 0 ("rank 0 ended the job: ..."). Each
 * rank holds the job's communicator and the children of a split that it is in: {1, 2, 3} (without rank 0) and
 * {0, 3}.
 */
class FailureRoutingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String TOKEN = "job-token-for-tests-0123456789abcdef";
    private static final int SIZE = 4;
    private static final int[] WITHOUT_RANK_ZERO = {1, 2, 3};
    private static final int[] ZERO_AND_THREE = {0, 3};

    /** When rank 2 ends the job, the child without rank 0 but with rank 2 is aborted at once, naming rank 2. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void whenRankTwoEndsTheJobTheChildWithoutRankZeroIsAborted(boolean standalone) throws Exception {
        CountDownLatch watching = new CountDownLatch(SIZE);
        try (Job job = new Job(standalone, (rank, parts) -> {
            watching.countDown();
            if (rank == 2) {
                watching.await(60, TimeUnit.SECONDS);
                parts.joined.abort("out of memory");
            }
        })) {
            for (int rank : new int[] {1, 3}) {
                String failure = job.rank(rank).awaitWithoutRankZero();
                assertTrue(
                        failure.contains("rank 2 ")
                                && failure.contains("ended the job: out of memory")
                                && failure.contains(
                                        "rank 2 of the job (rank 1 of this communicator, split with color 1)"),
                        "rank " + rank + ": " + failure);
            }
            assertEquals(Optional.empty(), job.rank(3).zeroAndThree.failure(), "the child {0, 3} does not hold rank 2");
        }
    }

    /**
     * Ranks 0 and 3 stall where ranks 1 and 2 never arrive: the verdict blames 1 and 2, so the child {1, 2, 3} is
     * aborted on ranks 1 and 3, and the child {0, 3} is not.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStallVerdictNamingRanksOneAndTwoBlamesThemNotRankZero(boolean standalone) throws Exception {
        try (Job job = new Job(standalone, (rank, parts) -> {
            if (rank == 0 || rank == 3) {
                parts.joined.stalled("waited 5 s for stream synchronize");
            }
        })) {
            for (int rank : new int[] {1, 3}) {
                String failure = job.rank(rank).awaitWithoutRankZero();
                assertTrue(
                        failure.contains(
                                "ranks [1, 2] of the job (ranks [0, 1] of this communicator, split with color 1)"),
                        "rank " + rank + ": " + failure);
            }
            for (int rank : ZERO_AND_THREE) {
                assertEquals(
                        Optional.empty(),
                        job.rank(rank).zeroAndThree.failure(),
                        "rank " + rank + ": the child {0, 3} holds neither rank 1 nor rank 2");
            }
        }
    }

    /** What a rank does once its communicators are watched. */
    private interface Scenario {
        void run(int rank, Parts parts) throws Exception;
    }

    /** A rank's parts of the job's watch: the job's communicator and the children it is in (null where not). */
    private static final class Parts {
        final JobWatch.Watched joined;
        final JobWatch.Watched withoutRankZero;
        final JobWatch.Watched zeroAndThree;
        final CountDownLatch withoutRankZeroAborted = new CountDownLatch(1);

        Parts(int rank, Rendezvous rendezvous) {
            joined = JobWatch.start(rendezvous, JobRanks.ofJob(SIZE), () -> {});
            withoutRankZero = rank == 0
                    ? JobWatch.NONE
                    : joined.child(ranks -> ranks.split(WITHOUT_RANK_ZERO, 1), withoutRankZeroAborted::countDown);
            zeroAndThree = rank == 0 || rank == 3
                    ? joined.child(ranks -> ranks.split(ZERO_AND_THREE, 2), () -> {})
                    : JobWatch.NONE;
        }

        /** Why the child {1, 2, 3} was aborted, once it was. */
        String awaitWithoutRankZero() throws InterruptedException {
            assertTrue(withoutRankZeroAborted.await(60, TimeUnit.SECONDS), "the child {1, 2, 3} was not aborted");
            return withoutRankZero.failure().orElseThrow();
        }

        void leave() {
            zeroAndThree.leave();
            withoutRankZero.leave();
            joined.leave();
        }
    }

    /**
     * A job of {@link #SIZE} rank threads whose server rank 0's process hosts, or a process of its own where
     * {@code standalone}: each rank watches and runs {@code scenario}; its parts are there once every rank is done.
     * Closing it leaves the job on every rank, then stops the server of its own.
     */
    private static final class Job implements AutoCloseable {
        final List<Parts> parts = new ArrayList<>();
        private final RendezvousServer server;

        Job(boolean standalone, Scenario scenario) throws Exception {
            String endpoint = "tcp://127.0.0.1:" + freePort();
            server = standalone
                    ? RendezvousServer.start(RendezvousEndpoint.parse(endpoint), SIZE, TOKEN, TIMEOUT)
                    : null;
            ExecutorService ranks = Executors.newFixedThreadPool(SIZE);
            try {
                List<Future<Parts>> futures = new ArrayList<>();
                for (int r = 0; r < SIZE; r++) {
                    int rank = r;
                    futures.add(ranks.submit(() -> {
                        Bootstrap.Builder builder = Bootstrap.builder()
                                .rank(rank)
                                .size(SIZE)
                                .rendezvous(endpoint)
                                .timeout(TIMEOUT)
                                .jobToken(TOKEN);
                        if (standalone) {
                            builder.option("rendezvousServer", "standalone");
                        }
                        Parts parts = new Parts(rank, builder.build().rendezvous());
                        scenario.run(rank, parts);
                        return parts;
                    }));
                }
                for (Future<Parts> future : futures) {
                    parts.add(future.get(60, TimeUnit.SECONDS));
                }
            } finally {
                ranks.shutdownNow();
            }
        }

        Parts rank(int rank) {
            return parts.get(rank);
        }

        @Override
        public void close() {
            parts.forEach(Parts::leave);
            if (server != null) {
                server.close();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
