package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.GraphCacheStats;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.internal.GraphCache;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
            Communicator comm = ctx.comm();
            return new GraphCache(comm, ctx.stream(), "Buckets", "bucket", capacity, args -> comm.allReduce(send,
                    args[0], recv, args[0], args[1], I32, ReduceOp.SUM, ctx.stream()));
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
                try (Arenas arenas = new Arenas(ctx); GraphCache cache = arenas.cache(4)) {
                    long[][] calls = {{0, 8}, {8, 4}, {0, 8}, {20, 12}, {8, 4}, {0, 8}};
                    for (int round = 0; round < calls.length; round++) {
                        arenas.fill(round * 100);
                        cache.launch(calls[round]);
                        arenas.expect(round * 100, (int) calls[round][0], (int) calls[round][1]);
                    }
                    assertEquals(new GraphCacheStats(3, 3, 0, 3, 4), cache.stats());
                    assertEquals("graph cache of bucket(): 3 of 4 graphs held, 3 captured, 3 hits, 0 evicted",
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
                try (Arenas arenas = new Arenas(ctx); GraphCache cache = arenas.cache(4)) {
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
    void beyondCapacityTheLeastRecentlyLaunchedIsDestroyedBeforeTheBuffersItUses() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                // one buffer per tuple, so what each graph holds on to can be seen
                List<DeviceBuffer> buffers = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    buffers.add(comm.allocate(Allocator.MEM_ALLOC, I32, 4));
                }
                try (GraphCache cache = new GraphCache(comm, ctx.stream(), "Buckets", "bucket", 2,
                        args -> comm.allReduce(buffers.get((int) args[0]), buffers.get((int) args[0]), 4, I32,
                                ReduceOp.SUM, ctx.stream()))) {
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
                try (Arenas arenas = new Arenas(ctx); GraphCache cache = arenas.cache(1)) {
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
                try (Arenas arenas = new Arenas(ctx); GraphCache cache = arenas.cache(2)) {
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
                CollectivesException e = assertThrows(CollectivesException.class, () -> new GraphCache(ctx.comm(),
                        ctx.stream(), "Buckets", "bucket", 0, args -> { }));
                assertContains(e.getMessage(), "Buckets.bucket()", "at least 1");
            });
        }
    }

    private static SimUsage ledger(RankContext ctx) {
        return ((SimCommunicator) ctx.comm()).ledger().snapshot();
    }
}
