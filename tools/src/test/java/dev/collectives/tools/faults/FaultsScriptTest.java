package dev.collectives.tools.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.tools.ScriptRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpu/faults.sh} on sim, as the build runs it: at 2 ranks, in every registration mode, rank 0's step fails
 * naming rank 1 and the cause whether rank 1 is killed, aborts its communicator, never calls, or calls with another
 * size; and {@code trace} on the flight records of the ranks names rank 1 and the call where it parted.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FaultsScriptTest {
    @TempDir
    Path out;

    @Test
    void everyFaultOfTheLastRankFailsTheOtherNamingItInEveryModeAtTwoRanks() throws Exception {
        ScriptRun run = ScriptRun.onSim("faults.sh", out, Map.of("RANKS", "2"));
        String output = run.text();

        assertEquals(0, run.status(), output);
        assertTrue(
                output.contains("\nmode   | kill   | abort  | silent | shapes\n"
                        + "NONE   | OK     | OK     | OK     | OK\n"
                        + "LOCAL  | OK     | OK     | OK     | OK\n"
                        + "GRAPH  | OK     | OK     | OK     | OK\n"),
                output);
        assertTrue(
                output.contains("\nfaults: 2 ranks: kill 3/3, abort 3/3, silent 3/3, shapes 3/3 as expected\n"),
                output);
        String survivor = Files.readString(out.resolve("logs/2-ranks/graph/kill/rank-0.log"), StandardCharsets.UTF_8);
        assertTrue(survivor.contains("\nfault: rank 0 failed after "), survivor);
        assertTrue(survivor.contains("the communicator was aborted (rank 1 at "), survivor);
        assertTrue(
                output.contains("\n  trace: rank 1 never enqueued #6 allGather(32 x UINT8) in "
                        + "dev.collectives.tools.faults.LocalFaultPipeline.step(1000) (its call check); rank 0 enqueued it "
                        + "and failed in it\n"),
                output);
        assertTrue(
                output.contains("\n  trace: #6: the ranks called different operations or sizes: rank 0 "
                        + "allGather(32 x UINT8) in dev.collectives.tools.faults.GraphFaultPipeline.step(1000) (its call "
                        + "check); rank 1 allGather(32 x UINT8) in dev.collectives.tools.faults.GraphFaultPipeline"
                        + ".step(1001) (its call check)\n"),
                output);
        try (Stream<Path> records = Files.list(out.resolve("logs/2-ranks/none/silent/flight"))) {
            assertTrue(
                    records.anyMatch(
                            f -> f.getFileName().toString().matches("flight-[0-9a-f]{12}-c[0-9a-f]{10}-rank1\\.json")),
                    "rank 1's record of the job's communicator");
        }
    }
}
