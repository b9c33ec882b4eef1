package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.await;
import static dev.collectives.runtime.bootstrap.RankThreadsForTests.bootstrap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.BootstrapException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A process in the place of a rank that died joins the running job through its TCP rendezvous: rank 0 admits one
 * per dead rank, turns away the others with the reason while the job goes on, and the survivors meet it.
 */
class ReplacementRendezvousTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final int port = RankThreadsForTests.freePort();
    private final String endpoint = "tcp://127.0.0.1:" + port;
    /** Counted down by each survivor once it watches the job, and once it heard of rank 1's death. */
    private final CountDownLatch watching = new CountDownLatch(2);

    private final CountDownLatch heardDeath = new CountDownLatch(2);

    private static Bootstrap replacement(String endpoint, int rank, int size, String token) {
        return Bootstrap.builder()
                .rank(rank)
                .size(size)
                .rendezvous(endpoint)
                .timeout(TIMEOUT)
                .jobToken(token)
                .option("replacement", "true")
                .build();
    }

    /** Rank 1 of 3 dies; the survivors resume once they heard of it, which {@code heardDeath} counts. */
    private static Rendezvous survivorAfterRankOneDied(
            String endpoint, int rank, CountDownLatch watching, CountDownLatch heardDeath) throws Exception {
        Rendezvous rendezvous = bootstrap(endpoint, rank, 3, TIMEOUT).rendezvous();
        BlockingQueue<String> heard = new ArrayBlockingQueue<>(1);
        assertTrue(rendezvous.watch(cause -> heard.offer(cause.text())));
        watching.countDown();
        String death = heard.poll(60, TimeUnit.SECONDS);
        assertTrue(death != null && death.contains("is gone"), "rank " + rank + " heard " + death);
        assertEquals(Optional.empty(), rendezvous.resumeAmongSurvivors());
        heardDeath.countDown();
        return rendezvous;
    }

    /** Rank 1 of 3 joins, then its process "dies" once the others watch: its connection ends without a word. */
    private static void dieOnceWatched(int port, CountDownLatch watching) throws Exception {
        try (Socket doomed = RankThreadsForTests.admittedAs(port, 1, 3)) {
            await(watching);
        }
    }

    @Test
    void theSurvivorsMeetTheReplacementOfTheDeadRankAndGatherAmongAllRanks() {
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 1) {
                dieOnceWatched(port, watching);
                await(heardDeath);
                try (Rendezvous replacement =
                        replacement(endpoint, 1, 3, RankThreadsForTests.TOKEN).rendezvous()) {
                    assertTrue(replacement.replacement());
                    assertEquals(
                            JobState.Phase.AWAITING_TAKE_IN,
                            ((Exchange) replacement).state().phase(),
                            "admitted, the replacement waits in a phase of its own until the survivors take it in");
                    return gatherAfterReunion(replacement);
                }
            }
            try (Rendezvous survivor = survivorAfterRankOneDied(endpoint, rank, watching, heardDeath)) {
                assertFalse(survivor.replacement());
                return gatherAfterReunion(survivor);
            }
        });
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(
                    "replaced [1], gathered [10, 11, 12]", outcomes.get(rank).get(), "rank " + rank);
        }
    }

    private static String gatherAfterReunion(Rendezvous rendezvous) {
        int[] replaced = rendezvous.reunite(TIMEOUT);
        assertEquals(JobState.Phase.RUNNING, ((Exchange) rendezvous).state().phase());
        byte[][] all = rendezvous.allGather(new byte[] {(byte) (10 + rendezvous.rank())});
        List<Integer> values = new ArrayList<>();
        Arrays.stream(all).forEach(value -> values.add((int) value[0]));
        return "replaced " + Arrays.toString(replaced) + ", gathered " + values;
    }

    @Test
    void aWrongTokenALiveRankAndASecondReplacementAreTurnedAwayWithTheReasonAndTheJobGoesOn() {
        CountDownLatch refused = new CountDownLatch(1);
        List<String> refusals = new ArrayList<>();
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 1) {
                dieOnceWatched(port, watching);
                await(heardDeath);
                refusals.add(refusal(() -> replacement(endpoint, 1, 3, "another-job-token-0123456789abcdef")));
                refusals.add(refusal(() -> replacement(endpoint, 2, 3, RankThreadsForTests.TOKEN)));
                try (Rendezvous replacement =
                        replacement(endpoint, 1, 3, RankThreadsForTests.TOKEN).rendezvous()) {
                    refusals.add(refusal(() -> replacement(endpoint, 1, 3, RankThreadsForTests.TOKEN)));
                    refused.countDown();
                    return gatherAfterReunion(replacement);
                }
            }
            try (Rendezvous survivor = survivorAfterRankOneDied(endpoint, rank, watching, heardDeath)) {
                await(refused);
                return gatherAfterReunion(survivor);
            }
        });
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(
                    "replaced [1], gathered [10, 11, 12]", outcomes.get(rank).get(), "rank " + rank);
        }
        String turnedAway = "rank 0 at " + endpoint + " turned rank ";
        assertMatches(
                turnedAway + "1 away: a connection from /127.0.0.1:\\d+ claiming rank 1 presented a wrong job token",
                refusals.get(0));
        assertMatches(
                turnedAway + "2 away: a replacement for rank 2 at /127.0.0.1:\\d+ was refused: rank 2 was not reported"
                        + " dead \\(only a rank whose process died is replaced\\)",
                refusals.get(1));
        assertMatches(
                turnedAway + "1 away: a replacement for rank 1 at /127.0.0.1:\\d+ was refused: a replacement for rank"
                        + " 1 joined from /127.0.0.1:\\d+ already",
                refusals.get(2));
    }

    private static String refusal(java.util.function.Supplier<Bootstrap> bootstrap) {
        BootstrapException e = assertThrows(
                BootstrapException.class, () -> bootstrap.get().rendezvous().close());
        return e.getMessage();
    }

    private static void assertMatches(String regex, String message) {
        assertTrue(message.matches("\\[bootstrap] rank \\d: " + regex.replace(".", "\\.")), message);
    }

    @Test
    void withoutAReplacementTheReunionFailsNamingTheRankAndWhyItIsGone() {
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 1) {
                dieOnceWatched(port, watching);
                return "gone";
            }
            try (Rendezvous survivor = survivorAfterRankOneDied(endpoint, rank, watching, heardDeath)) {
                survivor.reunite(Duration.ofMillis(rank == 0 ? 200 : 20_000));
                return "reunited";
            }
        });
        for (int rank : new int[] {0, 2}) {
            String message = outcomes.get(rank).message();
            assertTrue(
                    message.contains("no replacement joined at " + endpoint + " within 200 ms for rank 1 (rank 1 at "
                                    + "/127.0.0.1:")
                            && message.contains("is gone: its connection ended while the job ran"),
                    "rank " + rank + ": " + message);
        }
    }

    @Test
    void aReunionThatTimesOutNamesTheReplacementTurnedAwayForAWrongToken() {
        CountDownLatch refused = new CountDownLatch(1);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 1) {
                dieOnceWatched(port, watching);
                await(heardDeath);
                String refusal = refusal(() -> replacement(endpoint, 1, 3, "another-job-token-0123456789abcdef"));
                refused.countDown();
                return refusal;
            }
            try (Rendezvous survivor = survivorAfterRankOneDied(endpoint, rank, watching, heardDeath)) {
                await(refused);
                survivor.reunite(Duration.ofMillis(rank == 0 ? 200 : 20_000));
                return "reunited";
            }
        });
        for (int rank : new int[] {0, 2}) {
            String message = outcomes.get(rank).message();
            assertTrue(
                    message.matches("(?s).*no replacement joined at " + endpoint.replace(".", "\\.")
                            + " within 200 ms for rank 1 \\(.*\\); turned away: a connection from /127\\.0\\.0\\.1:\\d+"
                            + " claiming rank 1 presented a wrong job token.*"),
                    "rank " + rank + ": " + message);
        }
    }

    @Test
    void aReplacementJoinsOnlyThroughATcpRendezvousAndSaysSo() {
        Bootstrap bootstrap = Bootstrap.builder()
                .rank(1)
                .size(2)
                .rendezvous("file:/tmp/a-shared-directory")
                .jobToken(RankThreadsForTests.TOKEN)
                .option("replacement", "1")
                .build();
        BootstrapException e = assertThrows(BootstrapException.class, bootstrap::rendezvous);
        assertTrue(
                e.getMessage()
                        .contains("the replacement of rank 1 joins a running job through its tcp:// rendezvous, not "
                                + "file:"),
                e.getMessage());
        BootstrapException wrong = assertThrows(
                BootstrapException.class,
                () -> Bootstrap.builder()
                        .rank(1)
                        .size(2)
                        .rendezvous("tcp://127.0.0.1:1")
                        .jobToken(RankThreadsForTests.TOKEN)
                        .option("replacement", "yes")
                        .build()
                        .rendezvous());
        assertTrue(
                wrong.getMessage()
                        .contains("COLLECTIVES_REPLACEMENT (or collectives.replacement) is 1 or true for the "
                                + "replacement of a rank that died, else 0 or false, not 'yes'"),
                wrong.getMessage());
    }
}
