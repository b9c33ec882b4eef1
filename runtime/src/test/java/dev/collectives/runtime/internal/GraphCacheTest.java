package dev.collectives.runtime.internal;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.backend.sim.SimCommunicator;
import dev.collectives.backend.sim.SimUsage;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.GraphCacheStats;
import dev.collectives.runtime.LogCapture;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * A GRAPH step with parameters: one graph per argument tuple, captured on first use (or at bind), replayed on
 * later calls, the least recently launched destroyed beyond the capacity (R5: before the buffers it uses), all
 * destroyed on close.
 */
class GraphCacheTest {
    private static final DataType I32 = DataType.INT32;
    private static final int ARENA = 32;

    /** Each rank's arenas; the step allreduces {@code args[1]} elements at offset {@code args[0]} of them. */
    private static final class Arenas implements AutoCloseable {
        final DeviceBuffer send;
        final DeviceBuffer recv;
        final RankContext ctx;

        Arenas(RankContext ctx) {
            this.ctx = ctx;
            this.send = ctx.comm().allocate(Allocator.MEM_ALLOC, I32, ARENA);
            this.recv = ctx.comm().allocate(Allocator.MEM_ALLOC, I32, ARENA);
        }

        GraphCache cache(int capacity) {
            return cache(capacity, GraphCacheOverflow.WARN);
        }

        GraphCache cache(int capacity, GraphCacheOverflow overflow) {
            Communicator comm = ctx.comm();
            return new GraphCache(
                    comm,
                    ctx.stream(),
                    "Buckets",
                    "bucket",
                    capacity,
                    overflow,
                    args -> comm.allReduce(send, args[0], recv, args[0], args[1], I32, ReduceOp.SUM, ctx.stream()));
        }

        /** Fills send with {@code round + i} on every rank, recv with -1. */
        void fill(int round) {
            int[] values = new int[ARENA];
            Arrays.setAll(values, i -> round + i);
            send.copyFromHost(values);
            int[] marks = new int[ARENA];
            Arrays.fill(marks, -1);
            recv.copyFromHost(marks);
        }

        /** After {@link #fill}(round) and a launch of (offset, n): the sum there, -1 elsewhere. */
        void expect(int round, int offset, int n) {
            ctx.stream().synchronize();
            int[] want = new int[ARENA];
            Arrays.fill(want, -1);
            for (int i = offset; i < offset + n; i++) {
                want[i] = ctx.size() * (round + i);
            }
            int[] got = new int[ARENA];
            recv.copyToHost(got);
            assertArrayEquals(want, got, "round " + round + ", bucket (" + offset + ", " + n + ")");
        }

        @Override
        public void close() {
            send.close();
            recv.close();
        }
    }

    @Test
    void aTupleIsCapturedOnceAndReplayedWithTheDataOfTheMoment() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            cluster.run(ctx -> {
                try (Arenas arenas = new Arenas(ctx);
                        GraphCache cache = arenas.cache(4)) {
                    long[][] calls = {{0, 8}, {8, 4}, {0, 8}, {20, 12}, {8, 4}, {0, 8}};
                    for (int round = 0; round < calls.length; round++) {
                        arenas.fill(round * 100);
                        cache.launch(calls[round]);
                        arenas.expect(round * 100, (int) calls[round][0], (int) calls[round][1]);
                    }
                    assertEquals(new GraphCacheStats(3, 3, 0, 3, 4), cache.stats());
                    assertEquals(
                            "graph cache of bucket(): 3 of 4 graphs held, 3 captured, 3 hits, 0 evicted, 0 "
                                    + "missed after eviction",
                            cache.describe());
                    assertEquals(3, ledger(ctx).graphs());
                    assertEquals(3, ledger(ctx).graphExecs());
                }
                assertEquals(new SimUsage(0, 0, 0, 0, 0), ledger(ctx));
            });
        }
    }

    @Test
    void captureAtBindMakesTheFirstLaunchAHit() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                try (Arenas arenas = new Arenas(ctx);
                        GraphCache cache = arenas.cache(4)) {
                    cache.capture(0, 16);
                    cache.capture(16, 16);
                    cache.capture(0, 16);
                    arenas.fill(7);
                    ctx.stream().synchronize();
                    // captured, not run
                    arenas.expect(7, 0, 0);
                    cache.launch(16, 16);
                    arenas.expect(7, 16, 16);
                    assertEquals(new GraphCacheStats(2, 1, 0, 2, 4), cache.stats());
                }
            });
        }
    }

    @Test
    void wherePeersConnectLazilyATuplesFirstCallRunsEagerlyAndItsSecondIsCapturedWithTheSameSums() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).connectAtInit(false).build()) {
            cluster.run(ctx -> {
                try (Arenas arenas = new Arenas(ctx);
                        GraphCache cache = arenas.cache(4)) {
                    cache.capture(0, 16); // @Capture at bind: a capture now would connect nothing, so it waits
                    assertEquals(0, ledger(ctx).graphs());
                    long[][] calls = {{0, 16}, {0, 16}, {0, 16}, {16, 8}, {16, 8}};
                    List<Integer> graphsAfterEachCall = new ArrayList<>();
                    for (int round = 0; round < calls.length; round++) {
                        arenas.fill(round * 10);
                        cache.launch(calls[round]);
                        arenas.expect(round * 10, (int) calls[round][0], (int) calls[round][1]);
                        graphsAfterEachCall.add(ledger(ctx).graphs());
                    }
                    assertEquals(List.of(0, 1, 1, 1, 2), graphsAfterEachCall);
                    assertEquals(new GraphCacheStats(2, 1, 0, 2, 4), cache.stats());
                    assertEquals(
                            "graph cache of bucket(): 2 of 4 graphs held, 2 captured, 1 hits, 0 evicted, 0 "
                                    + "missed after eviction, 2 first calls run eagerly",
                            cache.describe());
                    // the eager calls are the step's own: one allreduce each, as the graphs launched hold
                    assertEquals(
                            List.of("allReduce", "graph", "graph", "allReduce", "graph"),
                            ctx.comm().flightRecord().entries().stream()
                                    .map(e -> e.call())
                                    .toList());
                }
            });
        }
    }

    @Test
    void beyondCapacityTheLeastRecentlyLaunchedIsDestroyedBeforeTheBuffersItUses() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                // one buffer per tuple, so what each graph holds on to can be seen
                List<DeviceBuffer> buffers = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    buffers.add(comm.allocate(Allocator.MEM_ALLOC, I32, 4));
                }
                try (GraphCache cache = new GraphCache(
                        comm,
                        ctx.stream(),
                        "Buckets",
                        "bucket",
                        2,
                        GraphCacheOverflow.WARN,
                        args -> comm.allReduce(
                                buffers.get((int) args[0]),
                                buffers.get((int) args[0]),
                                4,
                                I32,
                                ReduceOp.SUM,
                                ctx.stream()))) {
                    cache.launch(0);
                    cache.launch(1);
                    cache.launch(0);
                    // holds 0 and 1; a held graph's buffer cannot be freed
                    CollectivesException held = assertThrows(CollectivesException.class, buffers.get(1)::close);
                    assertEquals(Rule.R5_GRAPH_LIFETIME, held.rule(), held.getMessage());
                    cache.launch(2);
                    // 1 was the least recently launched: destroyed, exec and graph, so its buffer can go
                    assertEquals(new GraphCacheStats(3, 1, 1, 2, 2), cache.stats());
                    assertEquals(2, ledger(ctx).graphs());
                    assertEquals(2, ledger(ctx).graphExecs());
                    ctx.stream().synchronize();
                    buffers.get(1).close();
                    cache.launch(0);
                    assertEquals(new GraphCacheStats(3, 2, 1, 2, 2), cache.stats());
                    ctx.stream().synchronize();
                }
                // close destroyed the rest before the buffers go
                buffers.forEach(DeviceBuffer::close);
                assertEquals(new SimUsage(0, 0, 0, 0, 0), ledger(ctx));
            });
        }
    }

    @Test
    void aReturningTupleIsCapturedAgainAfterItsEviction() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                try (Arenas arenas = new Arenas(ctx);
                        GraphCache cache = arenas.cache(1)) {
                    for (int round = 0; round < 4; round++) {
                        int offset = round % 2 == 0 ? 0 : 16;
                        arenas.fill(round);
                        cache.launch(offset, 16);
                        arenas.expect(round, offset, 16);
                    }
                    assertEquals(new GraphCacheStats(4, 0, 3, 1, 1), cache.stats());
                }
            });
        }
    }

    @Test
    void closeIsIdempotentAndALaunchAfterItNamesThePipelineAndTheStep() {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            cluster.run(ctx -> {
                try (Arenas arenas = new Arenas(ctx)) {
                    GraphCache cache = arenas.cache(2);
                    cache.launch(0, 4);
                    ctx.stream().synchronize();
                    cache.close();
                    cache.close();
                    assertEquals(0, ledger(ctx).graphs());
                    assertEquals(new GraphCacheStats(1, 0, 0, 0, 2), cache.stats());
                    for (Runnable late : List.<Runnable>of(() -> cache.launch(0, 4), () -> cache.capture(4, 4))) {
                        CollectivesException e = assertThrows(CollectivesException.class, late::run);
                        assertEquals(Rule.R5_GRAPH_LIFETIME, e.rule());
                        assertContains(e.getMessage(), "Buckets", "bucket()");
                    }
                }
            });
        }
    }

    @Test
    void aStepThatFailsDuringCaptureLeavesNothingBehind() {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            cluster.run(ctx -> {
                try (Arenas arenas = new Arenas(ctx);
                        GraphCache cache = arenas.cache(2)) {
                    assertThrows(CollectivesException.class, () -> cache.launch(30, 4));
                    assertEquals(Stream.CaptureStatus.NONE, ctx.stream().captureStatus());
                    assertEquals(new GraphCacheStats(0, 0, 0, 0, 2), cache.stats());
                    assertEquals(0, ledger(ctx).graphs());
                    arenas.fill(1);
                    cache.launch(28, 4);
                    arenas.expect(1, 28, 4);
                }
            });
        }
    }

    @Test
    void aCacheHoldsAtLeastOneGraph() {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            cluster.run(ctx -> {
                CollectivesException e = assertThrows(
                        CollectivesException.class,
                        () -> new GraphCache(
                                ctx.comm(), ctx.stream(), "Buckets", "bucket", 0, GraphCacheOverflow.WARN, args -> {}));
                assertContains(e.getMessage(), "Buckets.bucket()", "at least 1");
            });
        }
    }

    @Test
    void aCacheTooSmallForTheTuplesItCyclesThroughWarnsOnceAndDescribeSaysSo() {
        List<LogRecord> records = LogCapture.capture(GraphCache.LOGGER, Level.WARNING, () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
                cluster.run(ctx -> {
                    try (Arenas arenas = new Arenas(ctx);
                            GraphCache cache = arenas.cache(4)) {
                        for (int call = 0; call < 24; call++) {
                            cache.launch(call % 8, 1);
                        }
                        assertEquals(new GraphCacheStats(24, 0, 20, 4, 4), cache.stats());
                        String[] lines = cache.describe().split("\n");
                        assertEquals(2, lines.length, cache.describe());
                        assertEquals(
                                "graph cache of bucket(): 4 of 4 graphs held, 24 captured, 0 hits, 20 evicted, "
                                        + "16 missed after eviction",
                                lines[0]);
                        assertEquals(TOO_SMALL.replace("%d", "16"), lines[1]);
                    }
                });
            }
        });
        // once per cache, so once per rank: at the 4th miss on an evicted tuple, the 12th call
        assertEquals(2, records.size(), records.toString());
        for (LogRecord record : records) {
            assertEquals(Level.WARNING, record.getLevel());
            assertTrue(
                    Set.of("rank 0: " + TOO_SMALL.replace("%d", "4"), "rank 1: " + TOO_SMALL.replace("%d", "4"))
                            .contains(record.getMessage()),
                    record.getMessage());
        }
        assertNotEquals(records.get(0).getMessage(), records.get(1).getMessage());
    }

    private static final String TOO_SMALL = "Buckets.bucket(...): its graph cache is too small: it holds 4 graphs but "
            + "the step was called with 8 distinct argument tuples, and %d calls missed a graph it had evicted (each "
            + "such call captures it again, which costs far more than a launch); set "
            + "@CollectivePipeline(graphCache = 8), or call the step with fewer distinct arguments";

    @Test
    void evictionsOfTuplesThatNeverReturnAreNoSignOfACacheTooSmall() {
        List<LogRecord> records = LogCapture.capture(GraphCache.LOGGER, Level.WARNING, () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
                cluster.run(ctx -> {
                    try (Arenas arenas = new Arenas(ctx);
                            GraphCache cache = arenas.cache(2)) {
                        // a few sizes, then others for good, each used many times
                        for (int phase = 0; phase < 8; phase++) {
                            for (int call = 0; call < 6; call++) {
                                cache.launch(phase * 2 + call % 2, 1);
                            }
                        }
                        assertEquals(new GraphCacheStats(16, 32, 14, 2, 2), cache.stats());
                        assertEquals(
                                "graph cache of bucket(): 2 of 2 graphs held, 16 captured, 32 hits, 14 evicted, "
                                        + "0 missed after eviction",
                                cache.describe());
                    }
                });
            }
        });
        assertEquals(List.of(), records);
    }

    @Test
    void underFailACacheTooSmallRefusesEveryFurtherCaptureOfAnEvictedTupleOnEveryRank() {
        List<LogRecord> records = LogCapture.capture(GraphCache.LOGGER, Level.WARNING, () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
                cluster.run(ctx -> {
                    try (Arenas arenas = new Arenas(ctx);
                            GraphCache cache = arenas.cache(2, GraphCacheOverflow.FAIL)) {
                        // holds 2 and 0 after these; the second miss on an evicted tuple fails, before capturing
                        for (int tuple : new int[] {0, 1, 2, 0}) {
                            cache.launch(tuple, 1);
                        }
                        for (int refused = 0; refused < 2; refused++) {
                            CollectivesException e = assertThrows(CollectivesException.class, () -> cache.launch(1, 1));
                            assertEquals(null, e.rule());
                            assertEquals(Result.INVALID_USAGE, e.result());
                            assertEquals(
                                    "rank " + ctx.rank() + ": Buckets.bucket(...): its graph cache is too small: it "
                                            + "holds 2 graphs but the step was called with 3 distinct argument tuples, and "
                                            + (2 + refused)
                                            + " calls missed a graph it had evicted (each such call captures it "
                                            + "again, which costs far more than a launch); set "
                                            + "@CollectivePipeline(graphCache = 3), or call the step with fewer distinct "
                                            + "arguments (graphCacheOverflow = FAIL)",
                                    e.getMessage());
                            assertEquals(Stream.CaptureStatus.NONE, ctx.stream().captureStatus());
                        }
                        // the held tuples still launch; the launches above may still be queued
                        ctx.stream().synchronize();
                        arenas.fill(5);
                        cache.launch(2, 1);
                        arenas.expect(5, 2, 1);
                        assertEquals(new GraphCacheStats(4, 1, 2, 2, 2), cache.stats());
                        assertTrue(
                                cache.describe()
                                        .endsWith("(graphCache = 3), or call the step with fewer distinct "
                                                + "arguments"),
                                cache.describe());
                    }
                });
            }
        });
        assertEquals(List.of(), records);
    }

    @Test
    void pastTheTuplesItRemembersTheCacheSaysAtLeast() {
        List<LogRecord> records = LogCapture.capture(GraphCache.LOGGER, Level.WARNING, () -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
                cluster.run(ctx -> {
                    try (GraphCache cache = new GraphCache(
                            ctx.comm(), ctx.stream(), "Buckets", "bucket", 1, GraphCacheOverflow.WARN, args -> {})) {
                        for (int tuple = 0; tuple <= GraphCache.SEEN_LIMIT; tuple++) {
                            cache.launch(tuple);
                        }
                        cache.launch(0);
                    }
                });
            }
        });
        assertEquals(1, records.size(), records.toString());
        assertContains(
                records.get(0).getMessage(),
                "called with at least " + GraphCache.SEEN_LIMIT + " distinct",
                "1 call missed",
                "set @CollectivePipeline(graphCache = " + GraphCache.SEEN_LIMIT + ") or more,");
    }

    private static SimUsage ledger(RankContext ctx) {
        return ((SimCommunicator) ctx.comm()).usage();
    }
}
