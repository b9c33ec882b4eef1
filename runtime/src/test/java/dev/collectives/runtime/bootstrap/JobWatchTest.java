package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.await;
import static dev.collectives.runtime.bootstrap.RankThreadsForTests.bootstrap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.bootstrap.member.TcpMember;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watched job (the native backends keep the rendezvous as the job's lifeline while the communicator lives): every
 * rank's watcher hears why the job failed, naming the rank at fault, and nothing when the job ends normally.
 */
class JobWatchTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** What each rank's watcher heard, first thing only. */
    private final Map<Integer, BlockingQueue<String>> heard = new ConcurrentHashMap<>();

    private BlockingQueue<String> watcherOf(int rank) {
        return heard.computeIfAbsent(rank, r -> new ArrayBlockingQueue<>(1));
    }

    private String awaitHeard(int rank) throws InterruptedException {
        String failure = watcherOf(rank).poll(60, TimeUnit.SECONDS);
        assertTrue(failure != null, "rank " + rank + "'s watcher heard nothing");
        return failure;
    }

    @Test
    void aRankWhoseConnectionEndsWithoutLeavingIsNamedToEveryWatcher() throws Exception {
        List<RankThreadsForTests.Outcome<String>> outcomes = afterTheDeathOf(2, (rank, rendezvous) -> awaitHeard(rank));
        assertHeardOn(
                outcomes, new int[] {0, 1}, "rank 2 at /127.0.0.1:", "is gone: its connection ended while the job ran");
    }

    @Test
    void theSurvivorsOfADeathMeetAgainAndAgreeOnWhoIsLeft() throws Exception {
        List<RankThreadsForTests.Outcome<String>> outcomes = afterTheDeathOf(1, (rank, rendezvous) -> {
            String death = awaitHeard(rank);
            assertEquals(Optional.empty(), rendezvous.resumeAmongSurvivors());
            Rendezvous.Survivors survivors = rendezvous.allGatherOfSurvivors(new byte[] {(byte) (10 + rank)});
            return death + " | " + Arrays.toString(survivors.values()[0]) + " "
                    + Arrays.toString(survivors.values()[2]) + " | " + survivors.goneReasons()[1];
        });
        for (int rank : new int[] {0, 2}) {
            String seen = outcomes.get(rank).get();
            assertTrue(
                    seen.matches("rank 1 at /127\\.0\\.0\\.1:\\d+ is gone: its connection ended while the job ran .*"
                            + " \\| \\[10] \\[12] \\| rank 1 at .* is gone: .*"),
                    "rank " + rank + ": " + seen);
        }
    }

    /** What a survivor does once its watch is on: {@code rank}'s part over its {@code rendezvous}. */
    private interface Survivor {
        String run(int rank, Rendezvous rendezvous) throws Exception;
    }

    /**
     * A watched job of 3 ranks whose rank {@code doomed} is admitted, then its process "dies" (its connection ends
     * without a word) once the others watch; each other rank runs {@code survivor}. The doomed rank's outcome is
     * "gone".
     */
    private List<RankThreadsForTests.Outcome<String>> afterTheDeathOf(int doomed, Survivor survivor) throws Exception {
        int port = RankThreadsForTests.freePort();
        String endpoint = "tcp://127.0.0.1:" + port;
        CountDownLatch watching = new CountDownLatch(2);
        return RankThreadsForTests.run(3, rank -> () -> {
            if (rank == doomed) {
                try (Socket connection = RankThreadsForTests.admittedAs(port, doomed, 3)) {
                    await(watching);
                }
                return "gone";
            }
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 3, TIMEOUT).rendezvous()) {
                assertTrue(rendezvous.watch(cause -> watcherOf(rank).offer(cause.text())));
                watching.countDown();
                return survivor.run(rank, rendezvous);
            }
        });
    }

    @Test
    void aJobThatARankEndedCannotBeResumedAndSaysWhy() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        CountDownLatch watching = new CountDownLatch(2);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, TIMEOUT).rendezvous()) {
                assertTrue(rendezvous.watch(cause -> watcherOf(rank).offer(cause.text())));
                watching.countDown();
                if (rank == 1) {
                    await(watching);
                    rendezvous.abort("rank 1 called abort()");
                    return "aborted";
                }
                awaitHeard(rank);
                return rendezvous.resumeAmongSurvivors().orElse("resumed");
            }
        });
        String refused = outcomes.get(0).get();
        assertTrue(
                refused.startsWith("the job ended: rank 1 at /127.0.0.1:")
                        && refused.endsWith("ended the job: rank 1 called abort()"),
                refused);
    }

    /** What the watchers of {@code ranks} heard names the rank with its address, and the cause. */
    private static void assertHeardOn(
            List<RankThreadsForTests.Outcome<String>> outcomes, int[] ranks, String culprit, String cause) {
        for (int rank : ranks) {
            String failure = outcomes.get(rank).get();
            assertTrue(failure.contains(culprit) && failure.contains(cause), "rank " + rank + ": " + failure);
        }
    }

    @Test
    void aRankThatAbortsIsNamedWithItsReasonToTheOtherWatchers() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        CountDownLatch watching = new CountDownLatch(3);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 3, TIMEOUT).rendezvous()) {
                assertTrue(rendezvous.watch(cause -> watcherOf(rank).offer(cause.text())));
                watching.countDown();
                if (rank == 1) {
                    await(watching);
                    rendezvous.abort("rank 1 called abort()");
                    return "aborted";
                }
                return awaitHeard(rank);
            }
        });
        assertHeardOn(outcomes, new int[] {0, 2}, "rank 1 at /127.0.0.1:", "ended the job: rank 1 called abort()");
    }

    @Test
    void ranksThatNeverArriveWhereTheOthersStallAreNamedOnEveryRank() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(4, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 4, TIMEOUT).rendezvous()) {
                assertTrue(rendezvous.watch(cause -> watcherOf(rank).offer(cause.text())));
                if (rank != 1) {
                    rendezvous.stalled("waited 5 s for stream synchronize");
                }
                return awaitHeard(rank);
            }
        });
        for (int rank = 0; rank < 4; rank++) {
            String failure = outcomes.get(rank).get();
            assertTrue(
                    failure.contains(
                            "ranks [1] did not arrive at the collective that ranks [0, 2, 3] waited in"
                                    + " (each waited 5 s for stream synchronize): they never called it, or are stuck before it"),
                    "rank " + rank + ": " + failure);
        }
    }

    @Test
    void whenEveryRankStallsTheVerdictSaysTheyCalledDifferentCollectives() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, TIMEOUT).rendezvous()) {
                assertTrue(rendezvous.watch(cause -> watcherOf(rank).offer(cause.text())));
                rendezvous.stalled("waited " + (rank + 1) + " s for stream synchronize");
                return awaitHeard(rank);
            }
        });
        for (int rank = 0; rank < 2; rank++) {
            String failure = outcomes.get(rank).get();
            assertTrue(
                    failure.contains("every rank timed out waiting in the library (rank 0: waited 1 s for stream"
                            + " synchronize; rank 1: waited 2 s for stream synchronize): the ranks called different"
                            + " collectives, in another order or with other sizes"),
                    failure);
        }
    }

    @Test
    void aJobThatEndsNormallyIsHeardOfByNoWatcherWhicheverRankClosesFirst() throws Exception {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        CountDownLatch rootClosed = new CountDownLatch(1);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            Rendezvous rendezvous = bootstrap(endpoint, rank, 3, TIMEOUT).rendezvous();
            assertTrue(rendezvous.watch(cause -> watcherOf(rank).offer(cause.text())));
            if (rank == 0) {
                rendezvous.close(); // rank 0 is done first; the others are still at work
                rootClosed.countDown();
            } else {
                await(rootClosed);
                // it has read rank 0's goodbye
                ((TcpMember) rendezvous).watchOver().get(60, TimeUnit.SECONDS);
                rendezvous.close();
            }
            return "closed";
        });
        outcomes.forEach(RankThreadsForTests.Outcome::get);
        heard.forEach((rank, failures) -> assertTrue(failures.isEmpty(), "rank " + rank + " heard " + failures));
    }

    @Test
    void aWatchedRendezvousServesNoMoreOperations() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, TIMEOUT).rendezvous()) {
                rendezvous.watch(cause -> watcherOf(rank).offer(cause.text()));
                return assertThrows(BootstrapException.class, () -> rendezvous.allGather(new byte[1]))
                        .getMessage();
            }
        });
        outcomes.forEach(o -> assertTrue(o.get().contains("watches the job; it serves no more operations"), o.get()));
    }

    @Test
    void aFileRendezvousDoesNotWatchAndStaysUsable(@TempDir Path directory) {
        String endpoint = "file:" + directory.toAbsolutePath();
        List<RankThreadsForTests.Outcome<Integer>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, TIMEOUT).rendezvous()) {
                assertFalse(rendezvous.watch(cause -> watcherOf(rank).offer(cause.text())));
                return rendezvous.allGather(new byte[] {(byte) rank}).length;
            }
        });
        outcomes.forEach(o -> assertEquals(2, o.get()));
    }
}
