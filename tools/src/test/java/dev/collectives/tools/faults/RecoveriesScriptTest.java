package dev.collectives.tools.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.tools.ScriptRun;
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
 * {@code gpu/faults.sh}'s recoveries on sim, as processes at 2 and 4 ranks: in every registration mode rank N/2 is
 * killed in step 2, and the survivors shrink it away, or reform the job with a process started in its place; or rank 0
 * is killed while the driver serves the rendezvous, and the survivors shrink it away; every process runs its steps
 * with the right sums.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RecoveriesScriptTest {
    @TempDir
    Path out;

    @Test
    void aKilledMiddleRankIsShrunkAwayOrReplacedAndAKilledRankZeroShrunkAwayInEveryModeAtTwoAndFourRanks()
            throws Exception {
        ScriptRun run = ScriptRun.onSim("faults.sh", out, Map.of("RANKS", "2,4", "FAULTS", "kill"));
        String output = run.text();

        assertEquals(0, run.status(), output);
        for (int ranks : new int[] {2, 4}) {
            int killed = ranks / 2;
            assertTrue(
                    output.contains("\n== " + ranks + " ranks, a rank killed in step 2, then shrink (rank " + killed
                            + " killed) or replace (rank " + killed + " killed) or rank-0 (rank 0 killed)\n"),
                    output);
            for (String mode : new String[] {"NONE", "LOCAL", "GRAPH"}) {
                for (String recovery : new String[] {"shrink", "replace"}) {
                    assertTrue(
                            output.contains("\nrecovery: " + recovery + ", " + mode + ", " + ranks + " ranks, rank "
                                    + killed + " killed: OK in "),
                            output);
                }
                assertTrue(
                        output.contains("\nrecovery: rank-0, " + mode + ", " + ranks + " ranks, rank 0 killed: OK in "),
                        output);
                assertTrue(
                        Pattern.compile("\nrecovery: shrink, " + mode + ", " + ranks + " ranks, rank " + killed
                                        + " killed: OK in [0-9.]+ s\n  phases: rank \\d+ \\(.*\\): death -> heard \\d+"
                                        + " ms, heard -> new communicator \\d+ ms, -> bound \\d+ ms, -> first checked"
                                        + " step \\d+ ms \\(failure -> first step \\d+ ms\\); start -> bound \\d+ ms\n")
                                .matcher(output)
                                .find(),
                        output);
            }
            assertTrue(
                    output.contains(
                            "\nrecovery: " + ranks + " ranks: shrink 3/3, replace 3/3, rank-0 3/3 as expected\n"),
                    output);
        }
        String replacement = Files.readString(
                out.resolve("logs/4-ranks/local/recovery-replace/rank-2-replacement.log"), StandardCharsets.UTF_8);
        assertTrue(replacement.contains("\nreplacement: rank 2 of 4 ("), replacement);
        assertTrue(
                replacement.contains("\nrecovered: step 2 and 3 more with the replacement of rank 2\n"), replacement);
        String survivor =
                Files.readString(out.resolve("logs/4-ranks/local/recovery-shrink/rank-3.log"), StandardCharsets.UTF_8);
        assertTrue(survivor.contains("\nrecovered: 3 steps among the survivors\n"), survivor);
        String rankZeroSurvivor =
                Files.readString(out.resolve("logs/4-ranks/graph/recovery-rank-0/rank-1.log"), StandardCharsets.UTF_8);
        assertTrue(rankZeroSurvivor.contains("\nstep 2 failed: "), rankZeroSurvivor);
        assertTrue(rankZeroSurvivor.contains("rank 0"), rankZeroSurvivor);
        assertTrue(rankZeroSurvivor.contains("\nshrunk: rank 0 of 3 ("), rankZeroSurvivor);
        assertTrue(rankZeroSurvivor.contains("\nrecovered: 3 steps among the survivors\n"), rankZeroSurvivor);
    }
}
