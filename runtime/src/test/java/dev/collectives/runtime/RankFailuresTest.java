package dev.collectives.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * A local run whose ranks fail throws one exception whose message has a line per failed rank (its tag and the
 * first line of what it threw) and nothing nested: the full traces go to the log at DEBUG.
 */
class RankFailuresTest {
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void everyRankFailingGivesOneMessageWithALinePerRank(int ranks) {
        CollectivesException e = run(ranks, rank -> {
            throw CollectivesException.violation(Rule.R14_SHAPE, rank.rank(), "ranks bound different pipelines\n"
                    + "a second line that stays out of the summary");
        });
        String[] lines = e.getMessage().split("\n");
        assertEquals(ranks + 1, lines.length, e.getMessage());
        assertTrue(lines[0].matches("ranks 0, 1(, 2, 3)? failed \\(rank \\d first\\):"), lines[0]);
        for (int r = 0; r < ranks; r++) {
            assertEquals("rank " + r + ": [R14 SHAPE] ranks bound different pipelines", lines[r + 1]);
        }
        assertEquals(Rule.R14_SHAPE, e.rule());
        assertEquals(ranks - 1, e.getSuppressed().length);
        assertEquals(CollectivesException.class.getName() + ": " + e.getMessage(), e.toString());
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void oneRankFailingReleasesTheOthersAndEachSaysWhyOnItsLine(int ranks) {
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
        assertEquals(ranks + 1, lines.length, e.getMessage());
        assertTrue(lines[0].endsWith(" failed (rank 1 first):"), lines[0]);
        assertEquals("rank 1: java.lang.IllegalStateException: rank 1 gives up", lines[2]);
        for (int r = 0; r < ranks; r++) {
            assertTrue(lines[r + 1].startsWith("rank " + r + ": "), lines[r + 1]);
            assertFalse(lines[r + 1].contains("rank " + r + ": rank " + r), lines[r + 1]);
            assertTrue(r == 1 || lines[r + 1].contains("the communicator was aborted"), lines[r + 1]);
        }
        assertEquals(1, e.rank());
        assertTrue(e.getCause() instanceof IllegalStateException);
    }

    @Test
    void aSingleFailureIsOneLineWithItsCausesUnderIt() {
        CollectivesException e = run(2, rank -> {
            if (rank.rank() == 0) {
                throw new UncheckedIOException("reading the model failed", new IOException("disk full"));
            }
        });
        assertEquals("rank 0 failed: java.io.UncheckedIOException: reading the model failed\n"
                + "  caused by: java.io.IOException: disk full", e.getMessage());
    }

    @Test
    void everyRankFullTraceIsLoggedAtDebug() {
        AtomicReference<CollectivesException> thrown = new AtomicReference<>();
        List<LogRecord> records = LogCapture.capture("dev.collectives", Level.FINE, () -> thrown.set(run(2, rank -> {
            throw new IllegalArgumentException("rank " + rank.rank());
        })));
        records.removeIf(r -> !r.getLoggerName().equals("dev.collectives")); // not its children's records
        assertEquals(2, records.size());
        for (LogRecord record : records) {
            assertTrue(record.getThrown() == thrown.get().getCause()
                    || record.getThrown() == thrown.get().getSuppressed()[0], record.getMessage());
        }
        assertSame(IllegalArgumentException.class, thrown.get().getCause().getClass());
    }

    private static CollectivesException run(int ranks, LocalCluster.RankBody body) {
        try (LocalCluster cluster = Backends.get("sim").local(ranks)) {
            return assertThrows(CollectivesException.class, () -> cluster.run(body));
        }
    }
}
