package dev.collectives.tools.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.tools.ToolsOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code trace} on records that sim ranks wrote, and on what is not a record: its three exits. */
class TraceCommandTest {
    private static final DataType F32 = DataType.FLOAT32;

    @TempDir
    Path records;

    @Test
    void ranksThatIssuedTheSameCallsAgree() {
        job(2, ctx -> {
            try (DeviceBuffer a = ctx.comm().allocate(Allocator.MEM_ALLOC, F32, 8)) {
                ctx.comm().allReduce(a, a, 8, F32, ReduceOp.SUM, ctx.stream());
                ctx.comm().broadcast(a, a, 8, F32, 1, ctx.stream());
                ctx.stream().synchronize();
            }
        });

        ToolsOutput run = ToolsOutput.of("trace", records.toString());

        assertEquals(0, run.status(), run.text());
        assertTrue(
                run.text().matches("(?s)communicator formed \\(job [0-9a-f]{12}, 2 ranks\\):\n  the ranks agree\n.*"),
                run.text());
        String rankOneRow = "\n  1 +\\| 2/2 +\\| #2 broadcast \\(completed\\) +\\| #2 broadcast +\\| close\n";
        assertTrue(run.text().matches("(?s).*" + rankOneRow + ".*"), run.text());
    }

    @Test
    void aRankThatNeverCallsIsNamedWithTheCallTheOthersWaitIn() {
        job(3, ctx -> {
            try (DeviceBuffer a = ctx.comm().allocate(Allocator.MEM_ALLOC, F32, 8)) {
                ctx.comm().allReduce(a, a, 8, F32, ReduceOp.SUM, ctx.stream());
                ctx.stream().synchronize();
                if (ctx.rank() == 2) {
                    return;
                }
                ctx.comm().broadcast(a, a, 4, F32, 0, ctx.stream());
                ctx.stream().synchronize();
            } catch (RuntimeException expected) {
                // ranks 0 and 1 time out waiting for rank 2
            }
        });

        ToolsOutput run = ToolsOutput.of("trace", records.toString());

        assertEquals(1, run.status(), run.text());
        assertTrue(
                run.text()
                        .contains("\n  rank 2 never enqueued #2 broadcast(4 x FLOAT32, peer/root 0); ranks 0, 1 "
                                + "enqueued it and failed in it\n"),
                run.text());
        assertTrue(run.text().contains("\n  rank 0 failed in #2 broadcast(4 x FLOAT32, peer/root 0)\n"), run.text());
    }

    @Test
    void theTraceNamesTheCallThatTheOthersFailedInByTheNumberTheirFailuresGiveIt() {
        Map<Integer, String> failures = new ConcurrentHashMap<>();
        job(3, ctx -> {
            try (DeviceBuffer a = ctx.comm().allocate(Allocator.MEM_ALLOC, F32, 8);
                    DeviceBuffer b = ctx.comm().allocate(Allocator.MEM_ALLOC, F32, 8)) {
                ctx.comm().allReduce(a, b, 8, F32, ReduceOp.SUM, ctx.stream());
                // a ring of sends and receives: calls that the numbers count as well as collectives
                ctx.comm().groupStart();
                ctx.comm().send(a, 8, F32, (ctx.rank() + 1) % 3, ctx.stream());
                ctx.comm().recv(b, 8, F32, (ctx.rank() + 2) % 3, ctx.stream());
                ctx.comm().groupEnd();
                ctx.stream().synchronize();
                if (ctx.rank() == 2) {
                    return;
                }
                ctx.comm().allGather(a, b, 2, F32, ctx.stream());
                ctx.stream().synchronize();
            } catch (RuntimeException e) {
                failures.put(ctx.rank(), e.getMessage());
            }
        });

        ToolsOutput run = ToolsOutput.of("trace", records.toString());

        assertEquals(1, run.status(), run.text());
        assertTrue(
                run.text().contains("\n  rank 2 never enqueued #4 allGather(2 x FLOAT32); ranks 0, 1 enqueued it"),
                run.text());
        for (int rank : new int[] {0, 1}) {
            assertTrue(
                    failures.get(rank).contains("collective call #4 failed: ranks [2] did not arrive"),
                    failures.get(rank));
        }
    }

    @Test
    void theFirstCallThatRanksMadeWithOtherSizesIsNamed() {
        job(2, ctx -> {
            try (DeviceBuffer a = ctx.comm().allocate(Allocator.MEM_ALLOC, F32, 8)) {
                ctx.comm().allReduce(a, a, 8, F32, ReduceOp.SUM, ctx.stream());
                ctx.comm().allReduce(a, a, ctx.rank() == 1 ? 7 : 8, F32, ReduceOp.SUM, ctx.stream());
                ctx.stream().synchronize();
            } catch (RuntimeException expected) {
                // the sim refuses the second call on every rank (R14)
            }
        });

        ToolsOutput run = ToolsOutput.of("trace", records.toString());

        assertEquals(1, run.status(), run.text());
        assertTrue(
                run.text()
                        .contains("\n  #2: the ranks called different operations or sizes: rank 0 allReduce(8 x "
                                + "FLOAT32); rank 1 allReduce(7 x FLOAT32)\n"),
                run.text());
    }

    @Test
    void aMissingDirectoryIsBadInput() {
        ToolsOutput run = ToolsOutput.of("trace", records.resolve("absent").toString());

        assertEquals(2, run.status(), run.text());
        assertEquals("error: " + records.resolve("absent") + " is not a directory\n", run.text());
    }

    @Test
    void aFileOfAnotherFormatOrVersionIsBadInputNamed() throws IOException {
        Path other = records.resolve("flight-rank0-comm0.json");
        Files.writeString(other, "{\"format\": \"chrome-trace\"}", StandardCharsets.UTF_8);
        ToolsOutput format = ToolsOutput.of("trace", records.toString());
        Files.writeString(other, "{\"format\": \"collectives-flight-record\", \"version\": 9}", StandardCharsets.UTF_8);
        ToolsOutput version = ToolsOutput.of("trace", records.toString());
        Files.writeString(other, "[1, 2", StandardCharsets.UTF_8);
        ToolsOutput notJson = ToolsOutput.of("trace", records.toString());

        assertEquals(2, format.status(), format.text());
        assertEquals(
                "error: " + other + " is not a flight record: its \"format\" is not "
                        + "\"collectives-flight-record\"\n",
                format.text());
        assertEquals(2, version.status(), version.text());
        assertEquals(
                "error: " + other + " is a flight record of version 9; this trace reads version " + FlightRecord.VERSION
                        + "\n",
                version.text());
        assertEquals(2, notJson.status(), notJson.text());
        assertTrue(notJson.text().startsWith("error: " + other + " is not JSON: "), notJson.text());
        assertFalse(notJson.text().contains("\tat "), notJson.text());
    }

    /** Runs {@code body} on {@code ranks} sim ranks that write their flight records into {@link #records}. */
    private void job(int ranks, LocalCluster.RankBody body) {
        System.setProperty(FlightRecorder.DIR_PROPERTY, records.toString());
        // long enough for ranks that all call, short for those that wait for one that never does
        try (SimCluster cluster =
                SimBackend.cluster().ranks(ranks).timeout(Duration.ofSeconds(2)).build()) {
            cluster.run(body);
        } finally {
            System.clearProperty(FlightRecorder.DIR_PROPERTY);
        }
    }
}
