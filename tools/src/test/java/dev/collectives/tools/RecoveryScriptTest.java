package dev.collectives.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu/recovery.sh} on sim: 3 processes, rank 1 halts as its step 2 begins, and in every registration mode the
 * survivors shrink it away, bind again and run their steps with the right sums; one line per mode and the verdict.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RecoveryScriptTest {
    @TempDir
    Path out;

    @Test
    void theSurvivorsShrinkTheKilledRankAwayAndRunTheirStepsInEveryMode() throws Exception {
        ScriptRun run = ScriptRun.of(
                "recovery.sh",
                Map.of(
                        "BACKEND",
                        "sim",
                        "STEPS",
                        "3",
                        "OUT",
                        out.resolve("logs").toString()),
                out.resolve("script.log"));
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
        String survivor = Files.readString(out.resolve("logs/LOCAL/rank-2.log"), StandardCharsets.UTF_8);
        assertTrue(survivor.contains("\nshrunk: rank 1 of 2 ("), survivor);
        assertTrue(survivor.contains("\nrecovered: 3 steps among the survivors\n"), survivor);
    }
}
