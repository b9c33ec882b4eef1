package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.RankJvm.Finished;
import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.examples.mistakes.Mistakes;
import dev.collectives.examples.pipelines.RecoveryPhases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The runner's {@code join} as a real multi-process job on sim: one JVM per rank on this host, each finding its
 * place in {@code COLLECTIVES_*} variables as a launcher would give it and meeting the others at a loopback TCP
 * rendezvous. The ranks of a job start together, as under mpirun.
 */
@Timeout(180)
class MultiProcessJobTest {
    private static final String TOKEN = "a-job-token-for-the-multi-process-examples";
    /** Long enough for JVMs started together on a busy two-core machine to meet; what fails, fails well before. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** How much later than its deadline a rank may end: a JVM's start and exit on a busy machine. */
    private static final Duration SLACK = Duration.ofSeconds(30);

    @TempDir
    Path logs;

    private final List<RankJvm> jvms = new ArrayList<>();
    private final String endpoint = "tcp://127.0.0.1:" + freePort();

    @AfterEach
    void killLeftovers() {
        jvms.forEach(RankJvm::close);
    }

    @ParameterizedTest(name = "{0} process(es)")
    @ValueSource(ints = {1, 2, 3, 4})
    void theGuidesThreeExamplesPassOnEveryRank(int size) {
        List<Example> seed = Examples.all().stream()
                .filter(e -> e.name().startsWith("seed-"))
                .collect(Collectors.toList());
        assertEquals(3, seed.size(), "the MCCL user-buffer-registration guide's examples");
        List<String> args = new ArrayList<>(List.of("join"));
        seed.forEach(e -> args.add(e.name()));

        List<Finished> ranks = awaitAll(startJob(size, TIMEOUT, Runner.class, args));

        long inRange = seed.stream()
                .filter(e -> e.minRanks() <= size && size <= e.maxRanks())
                .count();
        for (int r = 0; r < size; r++) {
            Finished rank = ranks.get(r);
            assertEquals(Runner.PASSED, rank.status(), rank::toString);
            String passed = size == 1
                    ? "\ncheck: OK on all 1 rank(s): rank 0 compared "
                    : "\ncheck: OK on rank " + r + " of " + size + ": compared ";
            for (Example example : seed) {
                String section = section(rank, "== " + example.name() + ": ");
                boolean runs = example.minRanks() <= size && size <= example.maxRanks();
                assertTrue(section.contains(runs ? passed : "\nSKIPPED: "), rank::toString);
            }
            assertTrue(
                    rank.output()
                            .contains("examples: " + inRange + " passed, " + (seed.size() - inRange)
                                    + " skipped, 0 failed"),
                    rank::toString);
        }
    }

    @ParameterizedTest(name = "{0} process(es)")
    @ValueSource(ints = {1, 2, 3, 4})
    void everyMistakeRaisesItsRulesErrorOnEveryRank(int size) {
        List<Finished> ranks = awaitAll(startJob(size, TIMEOUT, Runner.class, List.of("join", "--mistakes")));

        List<Mistake> all = Mistakes.all();
        long applicable = all.stream().filter(m -> m.minRanks() <= size).count();
        for (int r = 0; r < size; r++) {
            Finished rank = ranks.get(r);
            assertEquals(Runner.PASSED, rank.status(), rank::toString);
            for (Mistake mistake : all) {
                String section = section(rank, "== mistake " + mistake.name() + ": ");
                assertTrue(
                        section.contains(
                                mistake.minRanks() <= size
                                        ? "\ncaught: rank " + r + " failed: "
                                                + mistake.rule().tag()
                                        : "\nSKIPPED: needs at least " + mistake.minRanks() + " ranks"),
                        rank::toString);
            }
            assertTrue(
                    rank.output()
                            .contains("mistakes: " + applicable + " passed, " + (all.size() - applicable)
                                    + " skipped, 0 failed"),
                    rank::toString);
        }
    }

    /** What the examples that need more than the defaults need comes from the sim settings every rank is given. */
    @Test
    void theExamplesNeedingCapabilitiesRunWhereTheSimSettingsProvideThem() {
        List<String> needy = List.of("ib-sharp", "mtlink-sharp", "legacy-general");
        List<String> args = new ArrayList<>(List.of("join"));
        args.addAll(needy);
        Map<String, String> settings = Map.of(
                "COLLECTIVES_SIM_IB_SHARP",
                "true",
                "COLLECTIVES_SIM_MTLINK_SHARP",
                "true",
                "COLLECTIVES_SIM_RANKS_PER_NODE",
                "1",
                "MCCL_LEGACY_MUSA_REGISTER",
                "1");

        List<Finished> ranks = awaitAll(startJob(2, TIMEOUT, Runner.class, args, settings));

        for (int r = 0; r < ranks.size(); r++) {
            Finished rank = ranks.get(r);
            assertEquals(Runner.PASSED, rank.status(), rank::toString);
            for (String name : needy) {
                assertTrue(
                        section(rank, "== " + name + ": ").contains("\ncheck: OK on rank " + r + " of 2: "),
                        rank::toString);
            }
            assertTrue(rank.output().contains("examples: 3 passed, 0 skipped, 0 failed"), rank::toString);
        }
    }

    /** hybrid-parallel's two splits of 8 ranks, each rank a process: the children talk over the job's rendezvous. */
    @Test
    void theHybridParallelExampleSplitsRanksInSeveralProcesses() {
        List<Finished> ranks = awaitAll(startJob(8, TIMEOUT, Runner.class, List.of("join", "hybrid-parallel")));

        for (int r = 0; r < ranks.size(); r++) {
            Finished rank = ranks.get(r);
            assertEquals(Runner.PASSED, rank.status(), rank::toString);
            assertTrue(
                    section(rank, "== hybrid-parallel: ").contains("\ncheck: OK on rank " + r + " of 8: "),
                    rank::toString);
        }
    }

    /**
     * One rank of three halts as its second step begins; the others, inside that step, fail naming it as gone (its
     * connection ended, not their deadline passed): rank 0, which watches every rank's connection, or, when rank 0
     * is the one gone, each rank itself.
     */
    @ParameterizedTest(name = "rank {0} halts")
    @ValueSource(ints = {0, 1})
    void aRankKilledMidStepFailsTheOthersNamingIt(int doomed) {
        Duration deadline = Duration.ofSeconds(15);
        List<Finished> ranks = awaitAll(
                startJob(3, deadline, HaltingRank.class, List.of(String.valueOf(doomed), "join", "seed-graph")));

        Finished halted = ranks.get(doomed);
        assertEquals(HaltingRank.HALTED, halted.status(), halted::toString);
        assertTrue(halted.output().contains("halting rank " + doomed + " as its step 2 begins"), halted::toString);
        for (Finished rank : ranks) {
            if (rank == halted) {
                continue;
            }
            assertEquals(Runner.FAILED, rank.status(), rank::toString);
            String section = section(rank, "== seed-graph: ");
            String failure = section.lines()
                    .filter(l -> l.startsWith("FAILED: "))
                    .findFirst()
                    .orElse("");
            assertTrue(failure.contains("rank " + doomed + " at ") && failure.contains(" is gone: "), rank::toString);
        }
    }

    /**
     * Rank 1 or 2 of 3 halts as its second step begins: the others' step fails naming it, they shrink it away, bind
     * the pipeline again on the survivors and finish the step with the survivors' sum.
     */
    @ParameterizedTest(name = "rank {0} halts")
    @ValueSource(ints = {1, 2})
    void theSurvivorsOfADeadRankShrinkItAwayAndFinishTheStep(int doomed) {
        List<Finished> ranks =
                awaitAll(startJob(3, TIMEOUT, Runner.class, List.of("recovery", "--kill", String.valueOf(doomed))));

        Finished halted = ranks.get(doomed);
        assertEquals(HaltingRank.HALTED, halted.status(), halted::toString);
        for (int r = 0; r < ranks.size(); r++) {
            Finished rank = ranks.get(r);
            if (rank == halted) {
                continue;
            }
            assertEquals(Runner.PASSED, rank.status(), rank::toString);
            String failure = rank.output()
                    .lines()
                    .filter(l -> l.startsWith("step 2 failed: "))
                    .findFirst()
                    .orElse("");
            assertTrue(
                    failure.contains("the communicator was aborted (rank " + doomed + " at ")
                            && failure.contains(" is gone: "),
                    rank::toString);
            assertTrue(rank.output().contains("shrunk: rank " + (r < doomed ? r : r - 1) + " of 2"), rank::toString);
            assertTrue(
                    section(rank, "== shrink-recovery: ")
                            .contains("\ncheck: OK on rank " + r + " of 3, now rank " + (r < doomed ? r : r - 1)
                                    + " of 2: "),
                    rank::toString);
        }
    }

    /**
     * Two ranks take in the processes that rank 0's process starts to join the job after step 1: every process runs
     * checked steps at the new size, and the ranks print their phases from the grow's call.
     */
    @ParameterizedTest(name = "2 -> {0} processes")
    @ValueSource(ints = {3, 4})
    void recoveryGrowTakesInProcessesThatJoinAndEveryProcessRunsCheckedStepsAtTheNewSize(int grown) {
        int added = grown - 2;
        List<Finished> ranks = awaitAll(startJob(
                2, TIMEOUT, Runner.class, List.of("recovery", "--grow", String.valueOf(added), "--steps", "3")));
        for (int r = 0; r < 2; r++) {
            Finished rank = ranks.get(r);
            assertEquals(Runner.PASSED, rank.status(), rank::toString);
            assertTrue(rank.output().contains("\ngrown: rank " + r + " of " + grown + " ("), rank::toString);
            assertTrue(
                    rank.output().contains("\nrecovered: 3 steps on " + grown + " ranks after the growth"),
                    rank::toString);
            assertTrue(RecoveryPhases.parse(rank.output()).isPresent(), rank::toString);
            assertTrue(
                    rank.output().contains("\ncheck: OK on rank " + r + " of 2, now rank " + r + " of " + grown + ": "),
                    rank::toString);
        }
        String joiners = ranks.get(0).output();
        for (int j = 1; j <= added; j++) {
            String prefix = "\njoiner " + j + ": ";
            assertTrue(joiners.contains(prefix + "joiner: rank "), () -> joiners);
            assertTrue(joiners.contains(prefix + "joiner: this process's start -> bound "), () -> joiners);
            assertTrue(
                    joiners.contains(prefix + "recovered: 3 steps on " + grown + " ranks after the growth"),
                    () -> joiners);
        }
        assertEquals(added, RecoveryPhases.newProcessesStartToBound(joiners).size(), () -> joiners);
    }

    /**
     * Rank 2 of 3 never starts: rank 0 fails at its (short) join timeout saying so, and rank 1, whose own timeout
     * is long, is told at once.
     */
    @Test
    void aRankThatNeverArrivesFailsTheOthersAtTheJoinTimeout() {
        Duration deadline = Duration.ofSeconds(3);
        RankJvm one = startRank(1, 3, TIMEOUT, Runner.class, List.of("join", "seed-graph"), Map.of());
        one.awaitLine("joining on sim", TIMEOUT);
        RankJvm zero = startRank(0, 3, deadline, Runner.class, List.of("join", "seed-graph"), Map.of());

        Finished root = zero.await(deadline.plus(SLACK));
        assertEquals(Runner.NOT_JOINED, root.status(), root::toString);
        assertTrue(
                root.output()
                        .contains("FAILED to join: [bootstrap] rank 0: rank 2 did not join at " + endpoint
                                + " within 3 s"),
                root::toString);
        Finished told = one.await(SLACK);
        assertEquals(Runner.NOT_JOINED, told.status(), told::toString);
        assertTrue(
                told.output()
                        .contains("FAILED to join: [bootstrap] rank 1: rank 0 ended the job: rank 2 did "
                                + "not join at " + endpoint + " within 3 s"),
                told::toString);
    }

    @Test
    void aBadSettingEndsTheRankWithTheUsageStatusBeforeItJoins() {
        RankJvm rank = RankJvm.start(
                "rank ? of two",
                logs.resolve("bad.log"),
                Runner.class,
                Map.of("COLLECTIVES_WORLD_SIZE", "two"),
                List.of("join", "seed-graph"));
        jvms.add(rank);

        Finished bad = rank.await(SLACK);
        assertEquals(Runner.USAGE, bad.status(), bad::toString);
        assertTrue(
                bad.output().startsWith("error: [bootstrap] COLLECTIVES_WORLD_SIZE is 'two', not a whole number"),
                bad::toString);
    }

    private List<RankJvm> startJob(int size, Duration timeout, Class<?> main, List<String> args) {
        return startJob(size, timeout, main, args, Map.of());
    }

    private List<RankJvm> startJob(
            int size, Duration timeout, Class<?> main, List<String> args, Map<String, String> more) {
        return IntStream.range(0, size)
                .mapToObj(r -> startRank(r, size, timeout, main, args, more))
                .collect(Collectors.toList());
    }

    /** Rank {@code rank} of {@code size}, all on this node, as a launcher would describe it, with {@code more}. */
    private RankJvm startRank(
            int rank, int size, Duration timeout, Class<?> main, List<String> args, Map<String, String> more) {
        Map<String, String> variables = new HashMap<>(more);
        variables.putAll(Map.of(
                "COLLECTIVES_BACKEND",
                "sim",
                "COLLECTIVES_RENDEZVOUS",
                endpoint,
                "COLLECTIVES_JOB_TOKEN",
                TOKEN,
                "COLLECTIVES_BOOTSTRAP_TIMEOUT",
                timeout.toMillis() + "ms",
                "COLLECTIVES_RANK",
                String.valueOf(rank),
                "COLLECTIVES_WORLD_SIZE",
                String.valueOf(size),
                "COLLECTIVES_LOCAL_RANK",
                String.valueOf(rank),
                "COLLECTIVES_LOCAL_SIZE",
                String.valueOf(size)));
        RankJvm jvm = RankJvm.start(
                "rank " + rank + " of " + size, logs.resolve("rank" + rank + ".log"), main, variables, args);
        jvms.add(jvm);
        return jvm;
    }

    private static List<Finished> awaitAll(List<RankJvm> ranks) {
        return ranks.stream().map(r -> r.await(TIMEOUT.plus(SLACK))).collect(Collectors.toList());
    }

    /** From {@code heading} to the blank line that ends its section. */
    private static String section(Finished rank, String heading) {
        int start = rank.output().indexOf(heading);
        assertTrue(start >= 0, () -> "no '" + heading + "' in " + rank);
        int end = rank.output().indexOf("\n\n", start);
        return rank.output().substring(start, end < 0 ? rank.output().length() : end);
    }

    /** A TCP port free on the loopback address now. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
