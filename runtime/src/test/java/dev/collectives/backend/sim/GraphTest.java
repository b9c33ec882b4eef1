package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Stream.CaptureStatus;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Graph capture (thread-local), instantiation and replay; graph registration's lifetime (R4, R5). */
class GraphTest {
    private static final DataType F32 = DataType.FLOAT32;

    @Test
    void r4CapturedOpsAreRecordedNotRunAndEveryLaunchReplaysThem() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                int n = ctx.size();
                try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, F32, 4);
                        DeviceBuffer sum = comm.allocate(Allocator.MEM_ALLOC, F32, 4);
                        DeviceBuffer gathered = comm.allocate(Allocator.VMM, F32, 4L * n)) {
                    assertEquals(CaptureStatus.NONE, stream.captureStatus());
                    stream.beginCapture();
                    assertEquals(CaptureStatus.ACTIVE, stream.captureStatus());
                    comm.allReduce(send, sum, 4, F32, ReduceOp.SUM, stream);
                    comm.allGather(send, gathered, 4, F32, stream);
                    try (Graph graph = stream.endCapture();
                            GraphExec exec = graph.instantiate()) {
                        assertEquals(CaptureStatus.NONE, stream.captureStatus());
                        stream.synchronize();
                        assertArrayEquals(new float[4], read(sum, 4), "capture must not run the ops");
                        for (int launch = 1; launch <= 3; launch++) {
                            send.copyFromHost(new float[] {launch, ctx.rank(), 1, -launch});
                            exec.launch(stream);
                            stream.synchronize();
                            float ranksSum = n * (n - 1) / 2f;
                            assertArrayEquals(new float[] {n * launch, ranksSum, n, -n * launch}, read(sum, 4));
                            float[] all = read(gathered, 4 * n);
                            for (int r = 0; r < n; r++) {
                                assertEquals(r, all[4 * r + 1]);
                                assertEquals(launch, all[4 * r]);
                            }
                        }
                    }
                }
            });
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    void pointToPointGroupsReplayFromAGraph() {
        try (SimCluster cluster = SimBackend.cluster().ranks(4).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                int next = (ctx.rank() + 1) % ctx.size();
                int previous = (ctx.rank() + ctx.size() - 1) % ctx.size();
                try (DeviceBuffer out = comm.allocate(Allocator.MEM_ALLOC, DataType.INT64, 2);
                        DeviceBuffer in = comm.allocate(Allocator.MEM_ALLOC, DataType.INT64, 2)) {
                    stream.beginCapture();
                    comm.groupStart();
                    comm.recv(in, 2, DataType.INT64, previous, stream);
                    comm.send(out, 2, DataType.INT64, next, stream);
                    comm.groupEnd();
                    try (Graph graph = stream.endCapture();
                            GraphExec exec = graph.instantiate()) {
                        for (long launch = 0; launch < 3; launch++) {
                            out.copyFromHost(new long[] {ctx.rank(), launch});
                            exec.launch(stream);
                            stream.synchronize();
                            long[] got = new long[2];
                            in.copyToHost(got);
                            assertArrayEquals(new long[] {previous, launch}, got);
                        }
                    }
                }
            });
        }
    }

    @Test
    void r5FreeingMemoryALiveGraphUsesIsRefused() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            Stream stream = comm.createStream();
            DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
            DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
            stream.beginCapture();
            comm.allReduce(send, recv, 8, F32, ReduceOp.SUM, stream);
            Graph graph = stream.endCapture();
            GraphExec exec = graph.instantiate();
            assertEquals(1, cluster.usage().graphs());
            assertEquals(1, cluster.usage().graphExecs());
            CollectivesException e = assertThrows(CollectivesException.class, recv::close);
            assertEquals(Rule.R5_GRAPH_LIFETIME, e.rule());
            assertContains(e.getMessage(), "[R5 GRAPH-LIFETIME] rank 0", "live graph", "destroy the graphs before");
            graph.close();
            assertThrows(CollectivesException.class, recv::close, "the exec still uses it");
            exec.launch(stream); // an exec outlives its graph
            stream.synchronize();
            exec.close();
            exec.close();
            graph.close();
            CollectivesException destroyed = assertThrows(CollectivesException.class, () -> exec.launch(stream));
            assertContains(destroyed.getMessage(), "already destroyed");
            recv.close();
            send.close();
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    void r4SynchronizingACapturingStreamInvalidatesTheCapture() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            Stream stream = comm.createStream();
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                stream.beginCapture();
                comm.allReduce(buffer, buffer, 8, F32, ReduceOp.SUM, stream);
                CollectivesException sync = assertThrows(CollectivesException.class, stream::synchronize);
                assertContains(sync.getMessage(), "invalidated");
                assertEquals(CaptureStatus.INVALIDATED, stream.captureStatus());
                assertThrows(
                        CollectivesException.class, () -> comm.allReduce(buffer, buffer, 8, F32, ReduceOp.SUM, stream));
                CollectivesException end = assertThrows(CollectivesException.class, stream::endCapture);
                assertContains(end.getMessage(), "invalidated", "no graph");
                assertEquals(CaptureStatus.NONE, stream.captureStatus());
            }
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    void r4CaptureIsThreadLocal() throws InterruptedException {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            Stream stream = comm.createStream();
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                stream.beginCapture();
                AtomicReference<Throwable> other = new AtomicReference<>();
                Thread thread = new Thread(
                        () -> {
                            try {
                                comm.allReduce(buffer, buffer, 8, F32, ReduceOp.SUM, stream);
                            } catch (Throwable t) {
                                other.set(t);
                            }
                            try {
                                stream.endCapture();
                            } catch (Throwable t) {
                                other.get().addSuppressed(t);
                            }
                        },
                        "other-thread");
                thread.start();
                thread.join();
                CollectivesException e = assertInstanceOf(CollectivesException.class, other.get());
                assertContains(e.getMessage(), "thread-local", "other-thread");
                assertEquals(1, e.getSuppressed().length, "endCapture from another thread must fail too");
                assertEquals(CaptureStatus.ACTIVE, stream.captureStatus());
                comm.allReduce(buffer, buffer, 8, F32, ReduceOp.SUM, stream);
                try (Graph graph = stream.endCapture()) {
                    assertTrue(graph.toString().contains("1 step"), graph.toString());
                }
            }
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    void aRefusedCallDoesNotShiftTheMatchingOfLaterCalls() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).timeout(PerRank.SHORT).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                try (DeviceBuffer buffer = comm.allocate(Allocator.LEGACY, F32, 1)) {
                    buffer.copyFromHost(new float[] {1});
                    if (ctx.rank() == 0) {
                        stream.beginCapture();
                        Thread other = new Thread(() -> assertThrows(
                                CollectivesException.class,
                                () -> comm.allReduce(buffer, buffer, 1, F32, ReduceOp.SUM, stream)));
                        other.start();
                        other.join();
                        stream.endCapture().close();
                    }
                    comm.allReduce(buffer, buffer, 1, F32, ReduceOp.SUM, stream);
                    stream.synchronize();
                    assertArrayEquals(new float[] {2}, read(buffer, 1));
                }
            });
        }
    }

    @Test
    void captureMisuseIsReported() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            Stream stream = cluster.communicator(0).createStream();
            assertContains(
                    assertThrows(CollectivesException.class, stream::endCapture).getMessage(), "not capturing");
            stream.beginCapture();
            assertContains(
                    assertThrows(CollectivesException.class, stream::beginCapture)
                            .getMessage(),
                    "already being captured");
            stream.endCapture().close();
        }
    }

    private static float[] read(DeviceBuffer buffer, int count) {
        float[] out = new float[count];
        buffer.copyToHost(out);
        return out;
    }
}
