package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sim job whose ranks are separate JVMs on this host, meeting through a TCP rendezvous on loopback and moving
 * their data through it: the data of every kind of call, the checks of the in-process sim on every rank, and
 * failures (a rank killed, a rank that never comes) that reach every rank within the deadline.
 */
class SimMultiProcessTest {
    private static final Duration LONG = Duration.ofSeconds(60);
    private static final String TOKEN = RankThreadsForTests.TOKEN;

    private final List<ChildRank> children = new ArrayList<>();

    private String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();

    @AfterEach
    void killLeftovers() {
        children.forEach(ChildRank::close);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void everyKindOfCallMovesTheRightDataBetweenProcesses(int size) {
        List<ChildRank> ranks = job(size, Map.of(), "ops");
        for (ChildRank rank : ranks) {
            for (String op : List.of(
                    "allReduce",
                    "large allReduce",
                    "allGather",
                    "reduceScatter",
                    "broadcast",
                    "reduce",
                    "allToAll",
                    "gather",
                    "scatter",
                    "send/recv")) {
                assertEquals("OK " + op + " data", rank.await("OK " + op + " data", LONG));
            }
            assertEquals("OK window true", rank.await("OK window", LONG));
            for (String example : List.of(
                    "seed 1 graph registration", "seed 2 local registration", "seed 3 registered block with views")) {
                assertEquals(example + ": ok", rank.await(example, LONG));
            }
            assertEquals(
                    "USAGE SimUsage[allocations=0, registrations=0, windows=0, graphs=0, graphExecs=0]",
                    rank.await("USAGE", LONG));
            rank.await("DONE", LONG);
            rank.awaitExit(0);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "2|mismatch|ranks called different collectives: count differs: rank 0: 6, rank 1: 5",
                "3|mismatch|ranks called different collectives: count differs: rank 0: 6, rank 1: 5, rank 2: 6",
                "2|pair-mismatch|send #0 from rank 0 to rank 1: the send is send(6 x FLOAT32, peer 1) but the recv is"
                        + " recv(5 x FLOAT32, peer 0); count and type must match",
                "3|window-mismatch|ranks disagree on whether the window is symmetric: rank 0: true, rank 1: false,"
                        + " rank 2: true"
            })
    void callsThatDisagreeFailEveryProcessWithTheSameVerdict(int size, String mode, String verdict) {
        List<String> messages = new ArrayList<>();
        for (ChildRank rank : job(size, Map.of(), mode)) {
            String message = rank.failure();
            assertTrue(message.startsWith("[R14 SHAPE] rank "), message);
            messages.add(message.replaceFirst("rank \\d+: ", ""));
        }
        assertTrue(messages.get(0).contains(verdict), messages.get(0));
        messages.forEach(m -> assertEquals(messages.get(0), m));
    }

    /** Rank 1, or rank 0 (which relays the rendezvous), killed while the others wait for it inside an allreduce. */
    @ParameterizedTest
    @ValueSource(ints = {1, 0})
    void aRankKilledInsideACollectiveFailsTheOthersPromptlyNamingIt(int doomed) {
        // the sim's own timeout is long: the others must learn of the death from the rendezvous, not wait it out
        List<ChildRank> ranks = job(3, Map.of("COLLECTIVES_SIM_TIMEOUT", "60s"), doomed == 0 ? "hang-rank-0" : "hang");
        List<ChildRank> others = new ArrayList<>(ranks);
        ChildRank victim = others.remove(doomed);
        victim.await("WAITING", LONG);
        others.forEach(rank -> rank.await("CALLING", LONG));
        victim.kill();
        String named = doomed == 0 ? "rank 0 at " + endpoint + " is gone" : "rank 1 at /127.0.0.1:";
        for (ChildRank rank : others) { // told by the rendezvous: the sim's timeout of 60 s is never reached
            // in the call when the death news came, or arriving at it after the other survivor had given it up
            String message = rank.failure();
            assertTrue(
                    (message.contains("the communicator was aborted")
                                    || message.contains("arrived after the other ranks gave up"))
                            && message.contains(named)
                            && message.contains("is gone"),
                    message);
        }
    }

    /**
     * Rank 1 killed: the survivors reform the job with a process started in its place, and every rank allreduces on
     * the reformed communicator.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void theSurvivorsOfAKilledRankReformTheJobWithItsReplacement(int size) {
        List<ChildRank> ranks = job(size, Map.of("COLLECTIVES_SIM_TIMEOUT", "60s"), "replace");
        List<ChildRank> survivors = killRankOne(ranks);
        ChildRank replacement =
                start(1, size, Map.of("COLLECTIVES_SIM_TIMEOUT", "60s", "COLLECTIVES_REPLACEMENT", "1"), "replace");
        assertTrue(replacement.await("REJOINED", LONG).startsWith("REJOINED sim communicator, rank 1 of " + size));
        for (ChildRank rank : survivors) {
            assertTrue(rank.await("REFORMED", LONG).startsWith("REFORMED sim communicator, rank "));
        }
        List<ChildRank> reformed = new ArrayList<>(survivors);
        reformed.add(replacement);
        for (ChildRank rank : reformed) {
            assertEquals("OK reformed allReduce data on " + size + " ranks", rank.await("OK reformed allReduce", LONG));
            rank.await("DONE", LONG);
            rank.awaitExit(0);
        }
    }

    /**
     * Two ranks grow the job by processes started to join it, which take the ranks after theirs; every rank
     * allreduces on the grown communicator, then all but the highest shrink it away and allreduce on the child.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void twoRanksGrowTheJobByProcessesThatJoinThenShrinkTheHighestAway(int added) {
        List<ChildRank> ranks = job(2, Map.of("GROW_BY", String.valueOf(added)), "grow");
        ranks.forEach(rank -> rank.await("GROWING", LONG));
        List<ChildRank> all = new ArrayList<>(ranks);
        for (int j = 0; j < added; j++) {
            all.add(startJoiner(Map.of()));
        }
        int size = 2 + added;
        for (ChildRank rank : all) {
            String grown = rank.await(rank == all.get(0) || rank == all.get(1) ? "GREW" : "JOINED", LONG);
            assertTrue(grown.contains("sim communicator, rank ") && grown.contains(" of " + size), grown);
            assertEquals("OK grown allReduce data on " + size + " ranks", rank.await("OK grown", LONG));
        }
        for (ChildRank member : ranks) { // never the highest rank, which the others shrink away
            assertEquals("OK shrunk allReduce data on " + (size - 1) + " ranks", member.await("OK shrunk", LONG));
        }
        for (ChildRank rank : all) {
            rank.await("DONE", LONG);
            rank.awaitExit(0);
        }
    }

    /**
     * A job of 3 whose rank 1 was killed shrinks it away, then grows by a process that joins: it takes the number
     * after the communicator's size, 2 (the job's 3, after its highest), and every rank allreduces on the grown one.
     */
    @Test
    void theSurvivorsOfAKilledRankShrinkThenGrowByAProcessThatJoins() {
        List<ChildRank> ranks = job(3, Map.of("COLLECTIVES_SIM_TIMEOUT", "60s"), "shrink-grow");
        List<ChildRank> survivors = killRankOne(ranks);
        for (ChildRank rank : survivors) {
            assertEquals("OK shrunk allReduce data on 2 ranks", rank.await("OK shrunk", LONG));
            rank.await("GROWING", LONG);
        }
        ChildRank joiner = startJoiner(Map.of("COLLECTIVES_SIM_TIMEOUT", "60s"), "shrink-grow");
        assertTrue(joiner.await("JOINED", LONG).startsWith("JOINED sim communicator, rank 2 of 3"));
        for (int r = 0; r < 2; r++) {
            String grew = survivors.get(r).await("GREW", LONG);
            assertTrue(grew.startsWith("GREW sim communicator, rank " + r + " of 3"), grew);
        }
        List<ChildRank> grown = new ArrayList<>(survivors);
        grown.add(joiner);
        for (ChildRank rank : grown) {
            assertEquals("OK grown allReduce data on 3 ranks", rank.await("OK grown", LONG));
            rank.await("DONE", LONG);
            rank.awaitExit(0);
        }
    }

    /** Fewer processes than asked for join in time: the growth fails on every rank naming how many came, and the job goes on. */
    @Test
    void fewerProcessesThanAskedForFailTheGrowthOnEveryRankAndTheJobGoesOnAtItsSize() {
        List<ChildRank> ranks = job(2, Map.of("GROW_BY", "2", "GROW_WITHIN", "1500"), "grow");
        ChildRank joiner = startJoiner(Map.of());
        for (ChildRank rank : ranks) {
            String failed = rank.await("NOT GROWN", LONG);
            assertTrue(
                    failed.contains("asked for 2 processes to join, 1 came to " + endpoint + " within 1.5 s; the job"
                            + " goes on with its 2 ranks"),
                    failed);
            assertEquals("OK ungrown allReduce data on 2 ranks", rank.await("OK ungrown", LONG));
            rank.await("DONE", LONG);
            rank.awaitExit(0);
        }
        assertTrue(joiner.failure().contains("the growth of the job at " + endpoint + " failed"), "joiner");
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 4})
    void splitMakesChildrenOfRanksInSeveralProcesses(int size) {
        List<ChildRank> ranks = job(size, Map.of(), "split");
        for (int r = 0; r < size; r++) {
            ChildRank rank = ranks.get(r);
            int members = (size - r % 2 + 1) / 2;
            assertEquals(
                    "OK split child rank " + (members - 1 - r / 2) + " of " + members,
                    rank.await("OK split child", LONG));
            assertEquals("OK split allGather data", rank.await("OK split allGather", LONG));
            assertEquals("OK split alone " + (r == 0 ? "0 of 1" : "none"), rank.await("OK split alone", LONG));
            assertEquals("OK allReduce data", rank.await("OK allReduce", LONG));
            rank.await("DONE", LONG);
            rank.awaitExit(0);
        }
    }

    @Test
    void aRankThatNeverCallsSplitFailsTheOthersAtTheSimTimeoutNamingIt() {
        List<ChildRank> ranks = job(3, Map.of("COLLECTIVES_SIM_TIMEOUT", "2s"), "split-hang");
        for (int r : new int[] {0, 2}) {
            String message = ranks.get(r).failure();
            assertTrue(
                    message.contains(
                            "split call #0 failed: ranks [1] did not arrive within 2000 ms (ranks [0, 2]" + " did)"),
                    message);
        }
    }

    /**
     * Rank 3 killed once the job split into the even and the odd ranks: the failure of its colour's child names it in
     * the job's numbering and in the child's, as on the device backend, and the even ranks' child goes on.
     */
    @Test
    void aDeathInASplitChildIsNamedInTheChildAndAChildWithoutItGoesOn() {
        List<ChildRank> ranks = job(4, Map.of("COLLECTIVES_SIM_TIMEOUT", "60s"), "split-death");
        ranks.get(3).await("WAITING", LONG);
        ranks.subList(0, 3).forEach(rank -> rank.await("CALLING", LONG));
        ranks.get(3).kill();
        String lost = ranks.get(1).await("LOST", LONG);
        assertTrue(
                lost.contains(
                                "the communicator was aborted (rank 3 of the job (rank 1 of this communicator, split with "
                                        + "color 1) at /127.0.0.1:")
                        && lost.contains("is gone"),
                lost);
        for (int r : new int[] {0, 2}) {
            String joined = ranks.get(r).await("LOST", LONG);
            assertTrue(joined.contains("(rank 3 at /127.0.0.1:"), joined);
            assertEquals("OK even allReduce data", ranks.get(r).await("OK even allReduce", LONG));
        }
    }

    @Test
    void anAbortOnOneRankFailsTheOthersCallsWithItsReason() {
        for (ChildRank rank : job(3, Map.of(), "abort")) {
            String message = rank.failure();
            assertTrue(message.contains("the communicator was aborted (rank 0 called abort())"), message);
        }
    }

    @Test
    void aRankThatNeverCallsFailsTheOthersAtTheSimTimeoutNamingIt() {
        List<ChildRank> ranks = job(3, Map.of("COLLECTIVES_SIM_TIMEOUT", "2s"), "hang");
        for (int r : new int[] {0, 2}) {
            String message = ranks.get(r).failure();
            assertTrue(
                    message.contains("collective call #1 failed: ranks [1] did not arrive within 2000 ms (ranks [0, 2]"
                            + " did)"),
                    message);
        }
    }

    @Test
    void aRankThatNeverArrivesFailsTheOthersAtTheJoinTimeoutNamingIt() {
        List<ChildRank> present = job(3, Map.of("COLLECTIVES_BOOTSTRAP_TIMEOUT", "3s"), "ops", 1);
        for (ChildRank rank : present) {
            String message = rank.failure();
            assertTrue(message.contains("rank 1 did not join at " + endpoint + " within 3 s"), message);
        }
    }

    @Test
    void capabilitiesAndTimeoutComeFromTheSettingsAndUsageIsCountedOnEveryRank() {
        Map<String, String> settings = Map.of(
                "COLLECTIVES_SIM_MTLINK_SHARP",
                "true",
                "COLLECTIVES_SIM_RANKS_PER_NODE",
                "1",
                "COLLECTIVES_SIM_LIBRARY_VERSION",
                "2.28.7",
                "COLLECTIVES_SIM_REGISTRATION",
                "false",
                "COLLECTIVES_SIM_TIMEOUT",
                "7s");
        for (ChildRank rank : job(2, settings, "settings")) {
            String capabilities = rank.await("CAPABILITIES", LONG);
            assertTrue(
                    capabilities.contains(
                            "libraryVersion=2.28.7, mtlinkSharp=true, ibSharp=false," + " registration=false"),
                    capabilities);
            assertTrue(rank.await("TOPOLOGY", LONG).contains("1 per node"), rank.await("TOPOLOGY", LONG));
            assertEquals("TIMEOUT 7000 ms", rank.await("TIMEOUT", LONG));
            assertEquals(
                    "USAGE SimUsage[allocations=1, registrations=0, windows=0, graphs=0, graphExecs=0]",
                    rank.await("USAGE", LONG));
            rank.await("DONE", LONG);
            rank.awaitExit(0);
        }
    }

    @Test
    void settingsThatDifferBetweenRanksFailEveryRankNamingTheValues() {
        List<ChildRank> ranks = new ArrayList<>(job(2, Map.of("COLLECTIVES_SIM_MTLINK_SHARP", "true"), "ops", 1));
        ranks.add(start(1, 2, Map.of("COLLECTIVES_SIM_MTLINK_SHARP", "false"), "ops"));
        for (ChildRank rank : ranks) {
            String message = rank.failure();
            assertTrue(
                    message.contains("disagree on the sim settings: rank 0: ")
                            && message.contains("mtlinkSharp=true")
                            && message.contains("rank 1: ")
                            && message.contains("mtlinkSharp=false"),
                    message);
        }
    }

    @Test
    void ranksThatClaimDifferentWorldSizesFailAtOnceSayingSo() {
        ChildRank three = start(1, 3, Map.of(), "ops");
        ChildRank two = start(0, 2, Map.of(), "ops");
        for (ChildRank rank : List.of(two, three)) {
            String message = rank.failure();
            assertTrue(
                    message.contains("rank 1 at /127.0.0.1:")
                            && message.contains("says the world size is 3, rank 0" + " at " + endpoint + " says 2"),
                    message);
        }
    }

    @Test
    void ranksInSeveralProcessesThroughAFileRendezvousFailAtOnceSayingWhy(@TempDir Path shared) {
        endpoint = "file:" + shared.resolve("job");
        for (ChildRank rank : job(2, Map.of("COLLECTIVES_BOOTSTRAP_TIMEOUT", "30s"), "ops")) {
            String message = rank.failure();
            assertTrue(message.contains("the sim serves through a tcp:// rendezvous only"), message);
        }
    }

    /** Kills rank 1 once it waits and the others call; returns the others once each lost it, naming it. */
    private static List<ChildRank> killRankOne(List<ChildRank> ranks) {
        List<ChildRank> survivors = new ArrayList<>(ranks);
        ChildRank victim = survivors.remove(1);
        victim.await("WAITING", LONG);
        survivors.forEach(rank -> rank.await("CALLING", LONG));
        victim.kill();
        for (ChildRank rank : survivors) {
            String lost = rank.await("LOST", LONG);
            assertTrue(lost.contains("rank 1 at /127.0.0.1:") && lost.contains("is gone"), lost);
        }
        return survivors;
    }

    /** Starts ranks {@code size - 1} down to 0 (rank 0 last, so that its deadline is not spent on JVM starts). */
    private List<ChildRank> job(int size, Map<String, String> settings, String mode, int... absent) {
        List<ChildRank> ranks = new ArrayList<>();
        for (int r = size - 1; r >= 0; r--) {
            int rank = r;
            if (IntStream.of(absent).noneMatch(a -> a == rank)) {
                ranks.add(0, start(r, size, settings, mode));
            }
        }
        return ranks;
    }

    /** A process that joins the running job at its next growth, in mode {@code grow}. */
    private ChildRank startJoiner(Map<String, String> settings) {
        return startJoiner(settings, "grow");
    }

    /** A process that joins the running job at its next growth, in {@code mode}. */
    private ChildRank startJoiner(Map<String, String> settings, String mode) {
        Map<String, String> variables = new HashMap<>(settings);
        variables.put("COLLECTIVES_JOINING", "1");
        variables.put("COLLECTIVES_RENDEZVOUS", endpoint);
        variables.put("COLLECTIVES_JOB_TOKEN", TOKEN);
        variables.putIfAbsent("COLLECTIVES_BOOTSTRAP_TIMEOUT", "30s");
        ChildRank child = ChildRank.start("joiner " + children.size(), SimRankProcess.class, variables, mode);
        children.add(child);
        return child;
    }

    private ChildRank start(int rank, int size, Map<String, String> settings, String mode) {
        Map<String, String> variables = new HashMap<>(settings);
        variables.put("COLLECTIVES_RANK", String.valueOf(rank));
        variables.put("COLLECTIVES_WORLD_SIZE", String.valueOf(size));
        variables.put("COLLECTIVES_RENDEZVOUS", endpoint);
        variables.put("COLLECTIVES_JOB_TOKEN", TOKEN);
        variables.putIfAbsent("COLLECTIVES_BOOTSTRAP_TIMEOUT", "30s");
        ChildRank child = ChildRank.start("rank " + rank, SimRankProcess.class, variables, mode);
        children.add(child);
        return child;
    }
}
