package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertCollectivesException;
import static dev.collectives.backend.sim.PerRank.assertContains;
import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Ranks that never arrive, abort, failing ranks in a run, streams, and close order. */
@Timeout(30)
class LifecycleTest {
    private static final DataType F32 = DataType.FLOAT32;

    @Test
    void aRankThatNeverArrivesFailsTheOthersAfterTheTimeoutNamingIt() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(4).timeout(PerRank.SHORT).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.LEGACY, F32, 8)) {
                    if (ctx.rank() % 2 == 0) {
                        ctx.comm().allReduce(buffer, buffer, 8, F32, ReduceOp.SUM, ctx.stream());
                        ctx.stream().synchronize();
                    }
                }
            });
            for (int r : new int[] {0, 2}) {
                CollectivesException e = assertCollectivesException(f, r);
                assertEquals(Result.REMOTE_ERROR, e.result());
                assertContains(
                        e.getMessage(),
                        "rank " + r + ": ",
                        "collective call #1",
                        "ranks [1, 3] did not arrive within 300 ms",
                        "ranks [0, 2] did");
            }
            assertNull(f[1]);
            assertNull(f[3]);
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void aLateRankFailsTooAndLaterCallsStillMatch() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).timeout(PerRank.SHORT).build()) {
            CountDownLatch timedOut = new CountDownLatch(1);
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer send = ctx.comm().allocate(Allocator.LEGACY, F32, 2);
                        DeviceBuffer recv = ctx.comm().allocate(Allocator.LEGACY, F32, 2)) {
                    if (ctx.rank() == 0) {
                        ctx.comm().allReduce(send, recv, 2, F32, ReduceOp.SUM, ctx.stream());
                        assertThrows(CollectivesException.class, ctx.stream()::synchronize);
                        timedOut.countDown();
                    } else {
                        timedOut.await();
                        ctx.comm().allReduce(send, recv, 2, F32, ReduceOp.SUM, ctx.stream());
                        CollectivesException late = assertThrows(CollectivesException.class, ctx.stream()::synchronize);
                        assertContains(late.getMessage(), "rank 1", "arrived after the other ranks gave up");
                    }
                    send.copyFromHost(new float[] {1, 2});
                    ctx.comm().allReduce(send, recv, 2, F32, ReduceOp.SUM, ctx.stream());
                    ctx.stream().synchronize();
                    float[] out = new float[2];
                    recv.copyToHost(out);
                    assertArrayEquals(new float[] {2, 4}, out);
                }
            });
            assertNull(f[0]);
            assertNull(f[1]);
        }
    }

    @Test
    void abortFailsPendingAndLaterCallsOnEveryRank() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            CountDownLatch pending = new CountDownLatch(2);
            Throwable[] f = failures(cluster, ctx -> {
                Communicator comm = ctx.comm();
                try (DeviceBuffer buffer = comm.allocate(Allocator.LEGACY, F32, 8)) {
                    if (ctx.rank() == 0) {
                        pending.await(); // the others' allreduces are on their streams, waiting for rank 0
                        comm.abort();
                        comm.allReduce(buffer, buffer, 8, F32, ReduceOp.SUM, ctx.stream());
                    } else {
                        comm.allReduce(buffer, buffer, 8, F32, ReduceOp.SUM, ctx.stream());
                        pending.countDown();
                        ctx.stream().synchronize();
                    }
                }
            });
            for (int r = 0; r < 3; r++) {
                assertContains(
                        assertCollectivesException(f, r).getMessage(),
                        "rank " + r + ": ",
                        "the communicator was aborted (rank 0 called abort())");
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void aFailingRankReleasesTheOthersInsteadOfLeavingThemWaiting() {
        // the default 60 s timeout would hang this test; the abort of the local run releases rank 1 at once
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            CollectivesException e = assertThrows(
                    CollectivesException.class,
                    () -> cluster.run(ctx -> {
                        try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.LEGACY, F32, 8)) {
                            if (ctx.rank() == 0) {
                                throw new IllegalStateException("rank 0 gives up");
                            }
                            ctx.comm().allReduce(buffer, buffer, 8, F32, ReduceOp.SUM, ctx.stream());
                            ctx.stream().synchronize();
                        }
                    }));
            assertEquals(0, e.rank());
            assertContains(
                    e.getMessage(),
                    "ranks 0, 1 failed (rank 0 first):\nrank 0: ",
                    "rank 0 gives up",
                    "\nrank 1: ",
                    "aborted");
            assertEquals(1, e.getSuppressed().length);
            assertContains(e.getSuppressed()[0].getMessage(), "aborted");
        }
    }

    @Test
    void streamsRunInOrderAndSynchronizeRethrowsTheFirstFailureOnce() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).timeout(Duration.ofSeconds(5)).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                Stream second = comm.createStream();
                try (DeviceBuffer a = comm.allocate(Allocator.LEGACY, DataType.INT32, 1);
                        DeviceBuffer b = comm.allocate(Allocator.LEGACY, DataType.INT32, 1)) {
                    a.copyFromHost(new int[] {1});
                    for (int i = 0; i < 5; i++) { // each waits for the previous: 1, 2, 4, 8, 16, 32
                        comm.allReduce(a, b, 1, DataType.INT32, ReduceOp.SUM, second);
                        comm.allReduce(b, a, 1, DataType.INT32, ReduceOp.MAX, second);
                    }
                    second.synchronize();
                    int[] out = new int[1];
                    a.copyToHost(out);
                    assertEquals(32, out[0]);
                    comm.allReduce(a, b, 1, DataType.INT32, ctx.rank() == 0 ? ReduceOp.SUM : ReduceOp.MAX, second);
                    comm.allReduce(a, b, 1, DataType.INT32, ReduceOp.SUM, second);
                    assertContains(
                            assertThrows(CollectivesException.class, second::synchronize)
                                    .getMessage(),
                            "reduce op differs");
                    second.synchronize(); // the failure was reported once; the stream goes on
                    b.copyToHost(out);
                    assertEquals(64, out[0]);
                }
            });
        }
    }

    @Test
    void collectivesReturnBeforeTheOtherRanksArrive() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
            CountDownLatch issued = new CountDownLatch(1);
            cluster.run(ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.LEGACY, F32, 4)) {
                    buffer.copyFromHost(new float[] {1, 2, 3, 4});
                    if (ctx.rank() == 1) {
                        issued.await(); // rank 1 calls only once rank 0's call has returned
                    }
                    ctx.comm().allReduce(buffer, buffer, 4, F32, ReduceOp.SUM, ctx.stream());
                    issued.countDown();
                    ctx.stream().synchronize();
                    float[] out = new float[4];
                    buffer.copyToHost(out);
                    assertArrayEquals(new float[] {2, 4, 6, 8}, out);
                }
            });
        }
    }

    @Test
    void freeingMemoryWaitsForTheStreamWorkThatUsesIt() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
            CountDownLatch freeing = new CountDownLatch(1);
            cluster.run(ctx -> {
                DeviceBuffer send = ctx.comm().allocate(Allocator.LEGACY, DataType.INT64, 1 << 16);
                try (DeviceBuffer recv = ctx.comm().allocate(Allocator.LEGACY, DataType.INT64, 1 << 16)) {
                    send.copyFromHost(new long[1 << 16]);
                    if (ctx.rank() == 1) {
                        freeing.await(); // rank 0's allreduce cannot have run yet: it waits for this rank's
                    }
                    ctx.comm().allReduce(send, recv, 1 << 16, DataType.INT64, ReduceOp.SUM, ctx.stream());
                    if (ctx.rank() == 0) {
                        freeing.countDown();
                    }
                    send.close(); // like cudaFree/musaFree, waits until the allreduce has read it
                    assertTrue(send.memory().isClosed());
                    ctx.stream().synchronize();
                }
            });
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void groupsAreBalancedAndUseOneStream() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            assertContains(
                    assertThrows(CollectivesException.class, comm::groupEnd).getMessage(),
                    "groupEnd() without groupStart()");
            try (DeviceBuffer buffer = comm.allocate(Allocator.LEGACY, F32, 4)) {
                comm.groupStart();
                comm.allReduce(buffer, buffer, 4, F32, ReduceOp.SUM, comm.defaultStream());
                assertContains(
                        assertThrows(
                                        CollectivesException.class,
                                        () -> comm.allReduce(buffer, buffer, 4, F32, ReduceOp.SUM, comm.createStream()))
                                .getMessage(),
                        "one stream");
                comm.groupEnd();
                comm.defaultStream().synchronize();
            }
        }
    }

    @Test
    void closeIsIdempotentAndReportsWhatWasLeftOpen() {
        SimCluster cluster = SimBackend.cluster().ranks(2).build();
        SimCommunicator comm = cluster.communicator(1);
        DeviceBuffer leaked = comm.allocate(Allocator.MEM_ALLOC, F32, 4);
        RegistrationHandle handle = comm.register(leaked);
        CollectivesException e = assertThrows(CollectivesException.class, cluster::close);
        assertContains(e.getMessage(), "rank 1", "live resources", "allocations=1", "registrations=1");
        cluster.close(); // idempotent: nothing more to report
        assertThrows(CollectivesException.class, () -> cluster.run(ctx -> {}));
        assertContains(
                assertThrows(CollectivesException.class, () -> comm.allocate(Allocator.LEGACY, F32, 1))
                        .getMessage(),
                "closed communicator");
        handle.close(); // graph, then registrations, then memory: still possible after the communicator
        leaked.close();
        assertTrue(cluster.usage().isZero());
    }

    @Test
    void closingInTheRightOrderLeavesNothingBehind() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, F32, 16);
                RegistrationHandle handle = comm.register(buffer);
                ctx.stream().beginCapture();
                comm.allReduce(buffer, buffer, 16, F32, ReduceOp.SUM, ctx.stream());
                var graph = ctx.stream().endCapture();
                var exec = graph.instantiate();
                exec.launch(ctx.stream());
                ctx.stream().synchronize();
                exec.close();
                graph.close();
                handle.close();
                buffer.close();
            });
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }
}
