package dev.collectives.tools.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.tools.ScriptRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deaths from outside on sim, through {@code gpu/recovery.sh} and {@code gpu/faults.sh} (the fault driver), at 3
 * and 4 processes in GRAPH: a middle rank frozen with {@code SIGSTOP} once it stepped, which the survivors declare dead
 * for want of heartbeats, shrink away or replace, and which, resumed, fails saying it was excluded; a rank killed with
 * {@code SIGKILL} mid-step, replaced or shrunk away, rank 0 too where the rendezvous is served apart.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class DeathsScriptTest {
    private static final String PHASES = "death -> heard \\d+ ms, heard -> new communicator \\d+ ms, -> bound \\d+ ms,"
            + " -> first checked step \\d+ ms \\(failure -> first step \\d+ ms\\); start -> bound \\d+ ms";

    @TempDir
    Path out;

    @Test
    void theRecoveryScriptShrinksAFrozenRankAwayAndTheResumedRankFailsSayingItWasExcluded() throws Exception {
        String output = succeeded(
                "recovery.sh",
                Map.of("DEATH", "freeze", "RANKS", "4", "MODES", "GRAPH", "STEPS", "3", "HEARTBEAT_TIMEOUT", "4"));
        assertFinds(
                "^recovery: GRAPH: 4 ranks, rank 1 stopped with SIGSTOP in step \\d+ \\(resumed:"
                        + " excluded\\); rank 0's child: shrunk from rank 0 of 4 without rank 1, by the sim's "
                        + "shrink; 3 steps with the right sums, no error 700: OK\n  phases: rank \\d \\(slowest"
                        + " of 3 survivors\\): " + PHASES
                        + "\n  stop -> failure: rank 0 \\d+ ms, rank 2 \\d+"
                        + " ms, rank 3 \\d+ ms\n",
                output);
        assertTrue(
                output.endsWith(
                        "recovery: 1/1 modes as expected (sim, 4 ranks, rank 1 stopped with SIGSTOP, 3 steps after)\n"),
                output);
        String survivor = log("GRAPH/rank-2.log");
        assertTrue(survivor.contains("rank 1 at /127.0.0.1:") && survivor.contains("no heartbeat for 4 s"), survivor);
        String frozen = log("GRAPH/rank-1.log");
        assertTrue(frozen.contains("was excluded from the job"), frozen);
    }

    @Test
    void theRecoveryScriptReplacesARankKilledMidStep() throws Exception {
        String output =
                succeeded("recovery.sh", Map.of("DEATH", "kill", "REPLACE", "1", "MODES", "GRAPH", "STEPS", "3"));
        assertFinds(
                "^recovery: GRAPH: 3 ranks, rank 1 killed with SIGKILL in step \\d+ and replaced; rank 0"
                        + " reformed: rank 0 of 3 \\(sim communicator, rank 0 of 3\\); step 2 and 3 more steps"
                        + " with the right sums, no error 700: OK\n  phases: rank \\d \\(slowest of 2"
                        + " survivors\\): " + PHASES + "; the replacement's start -> bound \\d+ ms\n",
                output);
        assertTrue(
                output.endsWith(
                        "recovery: 1/1 modes as expected (sim, 3 ranks, rank 1 killed with SIGKILL and replaced,"
                                + " 3 steps after)\n"),
                output);
    }

    @Test
    void theFaultDriverShrinksAwayOrReplacesAFrozenRankAtThreeRanks() throws Exception {
        String output = faults(3, "shrink,replace", "freeze");
        assertTrue(
                output.contains("\n== 3 ranks, a rank stopped with SIGSTOP while it steps, then shrink (rank 1 stopped"
                        + " with SIGSTOP) or replace (rank 1 stopped with SIGSTOP)\n"),
                output);
        assertFinds(
                "\nrecovery: shrink, GRAPH, 3 ranks, rank 1 stopped with SIGSTOP: OK in [0-9.]+ s\n"
                        + "  phases: rank \\d \\(slowest of 2 survivors\\): " + PHASES
                        + "; stop -> failure: rank 0 \\d+ ms, rank 2 \\d+ ms\n",
                output);
        assertTrue(output.contains("\nrecovery: replace, GRAPH, 3 ranks, rank 1 stopped with SIGSTOP: OK in "), output);
        assertTrue(output.contains("\nrecovery: 3 ranks: shrink 1/1, replace 1/1 as expected\n"), output);
        String frozen = log("3-ranks/graph/recovery-replace/rank-1.log");
        assertTrue(frozen.contains("was excluded from the job"), frozen);
    }

    @Test
    void theFaultDriverShrinksAwayAMiddleRankOrRankZeroKilledMidStepAtFourRanks() throws Exception {
        String output = faults(4, "shrink,rank-0", "kill");
        assertFinds(
                "\nrecovery: shrink, GRAPH, 4 ranks, rank 2 killed with SIGKILL: OK in [0-9.]+ s\n"
                        + "  phases: rank \\d \\(slowest of 3 survivors\\): " + PHASES + "\n",
                output);
        assertTrue(output.contains("\nrecovery: rank-0, GRAPH, 4 ranks, rank 0 killed with SIGKILL: OK in "), output);
        assertTrue(output.contains("\nrecovery: 4 ranks: shrink 1/1, rank-0 1/1 as expected\n"), output);
        String survivor = log("4-ranks/graph/recovery-shrink/rank-3.log");
        assertTrue(survivor.contains("\nrecovered: 3 steps among the survivors\n"), survivor);
    }

    /**
     * What {@code gpu/faults.sh} printed, having exited 0, at {@code ranks} ranks in GRAPH, its recoveries
     * {@code recoveries} after {@code death} (and its one kill fault job).
     */
    private String faults(int ranks, String recoveries, String death) throws Exception {
        return succeeded(
                "faults.sh",
                Map.of(
                        "RANKS",
                        String.valueOf(ranks),
                        "MODES",
                        "GRAPH",
                        "FAULTS",
                        "kill",
                        "RECOVERIES",
                        recoveries,
                        "DEATH",
                        death));
    }

    /** What {@code gpu/<script>} printed on sim with {@code variables}, having exited 0. */
    private String succeeded(String script, Map<String, String> variables) throws Exception {
        ScriptRun run = ScriptRun.onSim(script, out, variables);
        assertEquals(0, run.status(), run.text());
        return run.text();
    }

    /** {@code regex} (its ^ and $ at each line) matches somewhere in {@code output}. */
    private static void assertFinds(String regex, String output) {
        assertTrue(Pattern.compile(regex, Pattern.MULTILINE).matcher(output).find(), output);
    }

    /** The log at {@code path} under the script's logs. */
    private String log(String path) throws IOException {
        return Files.readString(out.resolve("logs").resolve(path), StandardCharsets.UTF_8);
    }
}
