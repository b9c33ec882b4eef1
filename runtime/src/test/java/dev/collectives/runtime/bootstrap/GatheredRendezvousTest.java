package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.Gatherer;
import dev.collectives.runtime.bootstrap.RankThreadsForTests.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Ranks that meet through a {@link Gatherer} (as the tasks of a Spark barrier stage do), not at an endpoint. */
class GatheredRendezvousTest {
    private static final Duration GENEROUS = Duration.ofSeconds(20);

    /** Threads of this JVM, gathering through shared slots. */
    private static final class ThreadsGatherer {
        private final byte[][] slots;
        private final CyclicBarrier filled;
        private final CyclicBarrier read;

        ThreadsGatherer(int ranks) {
            slots = new byte[ranks][];
            filled = new CyclicBarrier(ranks);
            read = new CyclicBarrier(ranks);
        }

        /** The gatherer of rank {@code rank}. */
        Gatherer of(int rank) {
            return (value, timeout) -> {
                try {
                    slots[rank] = value;
                    filled.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    byte[][] all = slots.clone();
                    read.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
                    return all;
                } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                    throw new IllegalStateException("the threads did not all gather", e);
                }
            };
        }
    }

    private static Bootstrap.Builder rank(int rank, int size, Gatherer gatherer) {
        return Bootstrap.builder().rank(rank).size(size).timeout(GENEROUS).gatherer("the test's gatherer", gatherer);
    }

    @Test
    void simRanksJoinThroughAGathererWithoutAnEndpointOrAJobToken() {
        ThreadsGatherer gatherer = new ThreadsGatherer(4);
        List<Outcome<float[]>> outcomes = RankThreadsForTests.run(
                4,
                rank -> () ->
                        SimJoinTest.jobBody(rank(rank, 4, gatherer.of(rank)).build()));
        outcomes.forEach(o -> assertArrayEquals(new float[] {6, 4, 12, -6}, o.get()));
    }

    @Test
    void theGathererTakesThePlaceOfAnEndpointFromTheEnvironment() {
        Bootstrap bootstrap = rank(1, 2, new ThreadsGatherer(2).of(1))
                .environment(Map.of("COLLECTIVES_RENDEZVOUS", "tcp://127.0.0.1:29500"))
                .build();
        assertEquals(Optional.empty(), bootstrap.endpoint());
        assertTrue(bootstrap.describe().contains("rendezvous the test's gatherer, timeout 20 s"), bootstrap.describe());
    }

    @Test
    void aGatherThatFailsFailsTheOperationSayingWhereAndWhy() {
        Gatherer failing = (value, timeout) -> {
            throw new IllegalStateException("rank 1 did not take part within " + timeout.toMillis() + " ms");
        };
        try (Rendezvous rendezvous = rank(0, 2, failing).build().rendezvous()) {
            BootstrapException e = assertThrows(BootstrapException.class, () -> rendezvous.broadcast(new byte[] {1}));
            assertEquals(
                    "[bootstrap] rank 0: broadcast #1 at the test's gatherer failed: rank 1 did not take part"
                            + " within 20000 ms",
                    e.getMessage());
        }
    }

    @Test
    void ranksThatPassValuesOfDifferentLengthsAllFail() {
        ThreadsGatherer gatherer = new ThreadsGatherer(2);
        List<Outcome<byte[][]>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous =
                    rank(rank, 2, gatherer.of(rank)).build().rendezvous()) {
                return rendezvous.allGather(new byte[rank + 1]);
            }
        });
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(
                    "[bootstrap] rank " + rank + ": allgather #1 at the test's gatherer: the ranks passed"
                            + " values of different lengths [1, 2] (by rank)",
                    outcomes.get(rank).message());
        }
    }
}
