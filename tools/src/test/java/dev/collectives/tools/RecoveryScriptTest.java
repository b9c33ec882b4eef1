package dev.collectives.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code gpu/recovery.sh} on sim: 3 processes, rank 1 halts as its step 2 begins, and in every registration mode the
 * survivors shrink it away, bind again and run their steps with the right sums; one line per mode and the verdict.
 * With {@code REPLACE=1}, at 2 and 4 processes, a process started in its place joins, the survivors reform the job
 * with it, and all of them run step 2 again and their steps with every rank's sum. With {@code KILL=0} the rendezvous
 * runs in a process of its own ({@code runner rendezvous}), and rank 0's replacement takes its place.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RecoveryScriptTest {
    @TempDir
    Path out;

    @Test
    void theSurvivorsShrinkTheKilledRankAwayAndRunTheirStepsInEveryMode() throws Exception {
        ScriptRun run = ScriptRun.onSim("recovery.sh", out, Map.of("STEPS", "3"));
        String output = run.text();

        assertEquals(0, run.status(), output);
        for (String mode : new String[] {"NONE", "LOCAL", "GRAPH"}) {
            assertTrue(
                    output.contains("recovery: " + mode + ": 3 ranks, rank 1 killed in step 2; rank 0's child: "
                            + "shrunk from rank 0 of 3 without rank 1, by the sim's shrink; 3 steps with the right "
                            + "sums, no error 700: OK\n"),
                    output);
        }
        assertTrue(
                output.endsWith("recovery: 3/3 modes as expected (sim, 3 ranks, rank 1 killed, 3 steps after)\n"),
                output);
        assertEquals(3, phases(output, "slowest of 2 survivors", ""), output);
        String survivor = Files.readString(out.resolve("logs/LOCAL/rank-2.log"), StandardCharsets.UTF_8);
        assertTrue(survivor.contains("\nshrunk: rank 1 of 2 ("), survivor);
        assertTrue(survivor.contains("\nrecovered: 3 steps among the survivors\n"), survivor);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void theSurvivorsReformTheJobWithAReplacementOfTheKilledRankInEveryMode(int ranks) throws Exception {
        ScriptRun run = ScriptRun.onSim(
                "recovery.sh", out, Map.of("REPLACE", "1", "RANKS", String.valueOf(ranks), "STEPS", "3"));
        String output = run.text();

        assertEquals(0, run.status(), output);
        for (String mode : new String[] {"NONE", "LOCAL", "GRAPH"}) {
            assertTrue(
                    output.contains("recovery: " + mode + ": " + ranks + " ranks, rank 1 killed in step 2 and replaced;"
                            + " rank 0 reformed: rank 0 of " + ranks + " (sim communicator, rank 0 of " + ranks + ");"
                            + " step 2 and 3 more steps with the right sums, no error 700: OK\n"),
                    output);
        }
        assertTrue(
                output.endsWith("recovery: 3/3 modes as expected (sim, " + ranks + " ranks, rank 1 killed and replaced,"
                        + " 3 steps after)\n"),
                output);
        String among = ranks == 2 ? "the only survivor" : "slowest of " + (ranks - 1) + " survivors";
        assertEquals(3, phases(output, among, "; the replacement's start -> bound \\d+ ms"), output);
        String replacement = Files.readString(out.resolve("logs/GRAPH/rank-1-replacement.log"), StandardCharsets.UTF_8);
        assertTrue(replacement.contains("\nreplacement: rank 1 of " + ranks + " ("), replacement);
        assertTrue(
                replacement.contains("\nrecovered: step 2 and 3 more with the replacement of rank 1\n"), replacement);
        assertTrue(replacement.contains("\ncheck: OK on rank 1 of " + ranks), replacement);
    }

    @Test
    void rankZerosReplacementTakesItsPlaceWhereTheRendezvousRunsInAProcessOfItsOwn() throws Exception {
        ScriptRun run = ScriptRun.onSim(
                "recovery.sh", out, Map.of("KILL", "0", "REPLACE", "1", "STEPS", "3", "MODES", "LOCAL,GRAPH"));
        String output = run.text();

        assertEquals(0, run.status(), output);
        for (String mode : new String[] {"LOCAL", "GRAPH"}) {
            assertTrue(
                    output.contains("recovery: " + mode + ": 3 ranks, rank 0 killed in step 2 and replaced; rank 1 "
                            + "reformed: rank 1 of 3 (sim communicator, rank 1 of 3); step 2 and 3 more steps with "
                            + "the right sums, no error 700: OK\n"),
                    output);
        }
        assertTrue(
                output.endsWith("recovery: 2/2 modes as expected (sim, 3 ranks, rank 0 killed and replaced, the "
                        + "rendezvous served apart, 3 steps after)\n"),
                output);
        String survivor = Files.readString(out.resolve("logs/GRAPH/rank-2.log"), StandardCharsets.UTF_8);
        assertTrue(survivor.contains("\nstep 2 failed: "), survivor);
        assertTrue(survivor.contains("rank 0 at /127.0.0.1:"), survivor);
        String server = Files.readString(out.resolve("logs/GRAPH/rendezvous.log"), StandardCharsets.UTF_8);
        assertTrue(server.startsWith("rendezvous: serving a job of 3 ranks at tcp://127.0.0.1:"), server);
        assertTrue(
                server.contains("\nrendezvous: the job is over: every rank left or died; the deaths on the way: rank 0"
                        + " at /127.0.0.1:"),
                server);
        String replacement = Files.readString(out.resolve("logs/GRAPH/rank-0-replacement.log"), StandardCharsets.UTF_8);
        assertTrue(replacement.contains("\nreplacement: rank 0 of 3 ("), replacement);
        assertTrue(replacement.contains("\ncheck: OK on rank 0 of 3"), replacement);
    }

    /** How many modes' phases lines {@code output} holds, of a survivor {@code among} the others, ending {@code tail}. */
    private static long phases(String output, String among, String tail) {
        return Pattern.compile(
                        "^  phases: rank \\d+ \\(" + among + "\\): death -> heard \\d+ ms, heard -> new"
                                + " communicator \\d+ ms, -> bound \\d+ ms, -> first checked step \\d+ ms \\(failure ->"
                                + " first step \\d+ ms\\); start -> bound \\d+ ms" + tail + "$",
                        Pattern.MULTILINE)
                .matcher(output)
                .results()
                .count();
    }
}
