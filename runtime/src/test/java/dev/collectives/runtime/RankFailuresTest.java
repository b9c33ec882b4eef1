package dev.collectives.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A local run whose ranks fail throws one exception whose message has a line per reason (the ranks that failed for
 * it, its tag and the first line of what they threw), the first failure's first, and the caller's frame: copies of the
 * same failure are neither repeated nor attached; the full traces go to the log at DEBUG.
 */
class RankFailuresTest {
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void everyRankFailingAlikeGivesTheReasonOnceAndTheCallersFrame(int ranks) {
        CollectivesException e = run(ranks, rank -> {
            throw CollectivesException.violation(
                    Rule.R14_SHAPE,
                    rank.rank(),
                    "ranks bound different pipelines\n" + "a second line that stays out of the summary");
        });
        String[] lines = e.getMessage().split("\n");
        assertEquals(2, lines.length, e.getMessage());
        assertEquals(
                (ranks == 2 ? "ranks 0, 1" : "ranks 0-3") + " failed: [R14 SHAPE] ranks bound different pipelines",
                lines[0]);
        assertTrue(lines[1].startsWith("  thrown in " + RankFailuresTest.class.getName() + ".lambda$"), lines[1]);
        assertEquals(Rule.R14_SHAPE, e.rule());
        assertEquals(0, e.getSuppressed().length);
        assertTrue(
                e.getStackTrace()[0].getClassName().startsWith(RankFailuresTest.class.getName()),
                "the trace starts in the caller's code: " + e.getStackTrace()[0]);
        assertEquals(CollectivesException.class.getName() + ": " + e.getMessage(), e.toString());
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void oneRankFailingReleasesTheOthersAndEachReasonHasItsLineTheFirstFirst(int ranks) {
        CollectivesException e = run(ranks, rank -> {
            try (DeviceBuffer buffer = rank.comm().allocate(Allocator.LEGACY, DataType.FLOAT32, 8)) {
                if (rank.rank() == 1) {
                    throw new IllegalStateException("rank 1 gives up");
                }
                rank.comm().allReduce(buffer, buffer, 8, DataType.FLOAT32, ReduceOp.SUM, rank.stream());
                rank.stream().synchronize();
            }
        });
        String[] lines = e.getMessage().split("\n");
        assertEquals((ranks == 2 ? "ranks 0, 1" : "ranks 0-3") + " failed (rank 1 first):", lines[0]);
        assertEquals("rank 1: java.lang.IllegalStateException: rank 1 gives up", lines[1]);
        for (int line = 2; line < lines.length - 1; line++) {
            assertTrue(
                    lines[line].startsWith("  caused by: ")
                            || lines[line].matches("ranks? [0-9, ]+: .*")
                                    && lines[line].contains("the communicator was aborted")
                                    && !lines[line].matches("rank (\\d): rank \\1.*"),
                    lines[line]);
        }
        assertTrue(
                lines[lines.length - 1].startsWith("  thrown in " + RankFailuresTest.class.getName()), e.getMessage());
        assertEquals(1, e.rank());
        assertTrue(e.getCause() instanceof IllegalStateException);
        assertEquals(lines.length - 3, e.getSuppressed().length, "one failure of each other reason");
    }

    @Test
    void aSingleFailureIsOneLineWithItsCausesUnderIt() {
        CollectivesException e = run(2, rank -> {
            if (rank.rank() == 0) {
                throw new UncheckedIOException("reading the model failed", new IOException("disk full"));
            }
        });
        assertTrue(
                e.getMessage()
                        .startsWith("rank 0 failed: java.io.UncheckedIOException: reading the model failed\n"
                                + "  caused by: java.io.IOException: disk full\n  thrown in "),
                e.getMessage());
    }

    @Test
    void everyRankFullTraceIsLoggedAtDebug() {
        AtomicReference<CollectivesException> thrown = new AtomicReference<>();
        List<LogRecord> records = LogCapture.capture(
                "dev.collectives",
                Level.FINE,
                () -> thrown.set(run(2, rank -> {
                    throw new IllegalArgumentException("rank " + rank.rank() + " fails its own way");
                })));
        records.removeIf(r -> !r.getLoggerName().equals("dev.collectives")); // not its children's records
        assertEquals(2, records.size());
        for (LogRecord record : records) {
            assertTrue(
                    record.getThrown() == thrown.get().getCause()
                            || record.getThrown() == thrown.get().getSuppressed()[0],
                    record.getMessage());
        }
        assertSame(IllegalArgumentException.class, thrown.get().getCause().getClass());
    }

    private static CollectivesException run(int ranks, LocalCluster.RankBody body) {
        try (LocalCluster cluster = Backends.get("sim").local(ranks)) {
            return assertThrows(CollectivesException.class, () -> cluster.run(body));
        }
    }
}
