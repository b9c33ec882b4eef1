package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.GraphCacheStats;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.internal.CallCheck;
import dev.collectives.runtime.internal.GraphCache;
import dev.collectives.runtime.spi.HostStaging;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sizes at call time on one GPU (one rank, so it runs where a single GPU is lent): the element-offset forms of
 * the collectives pass address + offset to the library, offsets outside a buffer are refused before the library
 * is called, a {@link GraphCache} captures, replays, evicts and destroys real graphs, and an allgather reads and
 * writes the per-call check's host staging in place.
 */
@Tag("gpu")
class DeviceShapesGpuTest {
    private static final int ARENA = 64;
    private static final int SEND_OFFSET = 3;
    private static final int RECV_OFFSET = 10;
    private static final int COUNT = 17;
    private static LocalCluster cluster;

    @BeforeAll
    static void start() {
        cluster = GpuFixture.backend().local(1);
        cluster.run(GpuFixture::warmUp);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void everyCollectiveReadsAndWritesAtItsOffsets() {
        cluster.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream s = ctx.stream();
            DataType t = DataType.INT32;
            check(
                    comm,
                    s,
                    (send, recv) -> comm.allReduce(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, t, ReduceOp.SUM, s));
            check(comm, s, (send, recv) -> comm.allGather(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, t, s));
            check(
                    comm,
                    s,
                    (send, recv) ->
                            comm.reduceScatter(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, t, ReduceOp.MAX, s));
            check(comm, s, (send, recv) -> comm.broadcast(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, t, 0, s));
            check(
                    comm,
                    s,
                    (send, recv) -> comm.reduce(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, t, ReduceOp.SUM, 0, s));
            check(comm, s, (send, recv) -> comm.allToAll(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, t, s));
            check(comm, s, (send, recv) -> {
                comm.groupStart();
                comm.send(send, SEND_OFFSET, COUNT, t, 0, s);
                comm.recv(recv, RECV_OFFSET, COUNT, t, 0, s);
                comm.groupEnd();
            });
        });
    }

    /** At one rank every op copies send[SEND_OFFSET, +COUNT) to recv[RECV_OFFSET, +COUNT); the rest stays. */
    private static void check(Communicator comm, Stream stream, BiConsumer<DeviceBuffer, DeviceBuffer> op) {
        try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.INT32, ARENA);
                DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.INT32, ARENA)) {
            int[] values = new int[ARENA];
            Arrays.setAll(values, i -> 1000 + i);
            send.copyFromHost(values);
            int[] want = new int[ARENA];
            Arrays.fill(want, -1);
            recv.copyFromHost(want);
            op.accept(send, recv);
            stream.synchronize();
            System.arraycopy(values, SEND_OFFSET, want, RECV_OFFSET, COUNT);
            int[] got = new int[ARENA];
            recv.copyToHost(got);
            assertArrayEquals(want, got);
        }
    }

    @Test
    void offsetsOutsideTheBufferAreRefusedBeforeTheLibraryIsCalled() {
        cluster.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream s = ctx.stream();
            try (DeviceBuffer b = comm.allocate(Allocator.MEM_ALLOC, DataType.INT32, ARENA)) {
                for (long[] bad : new long[][] {{-1, 1}, {ARENA - 1, 2}, {ARENA + 1, 0}, {Long.MAX_VALUE / 2, 1}}) {
                    CollectivesException e = assertThrows(
                            CollectivesException.class,
                            () -> comm.allReduce(b, 0, b, bad[0], bad[1], DataType.INT32, ReduceOp.SUM, s),
                            () -> Arrays.toString(bad));
                    assertTrue(e.getMessage().contains("recv buffer"), e.getMessage());
                }
                comm.allReduce(b, ARENA - 1, b, ARENA - 1, 1, DataType.INT32, ReduceOp.SUM, s);
                s.synchronize();
            }
        });
    }

    /** The per-call check's exchange: from pinned host memory into pinned host memory, no copy, read after a wait. */
    @Test
    void anAllGatherReadsAndWritesHostStagingInPlace() {
        cluster.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream s = ctx.stream();
            try (HostStaging staging = HostStaging.of(comm, 2 * COUNT).orElseThrow()) {
                ByteBuffer host = staging.buffer();
                for (int i = 0; i < COUNT; i++) {
                    host.put(i, (byte) (i + 1));
                    host.put(COUNT + i, (byte) -1);
                }
                comm.allGather(
                        staging.deviceView(0, DataType.UINT8, COUNT),
                        staging.deviceView(COUNT, DataType.UINT8, COUNT),
                        COUNT,
                        DataType.UINT8,
                        s);
                s.synchronize();
                for (int i = 0; i < COUNT; i++) {
                    assertEquals(i + 1, host.get(COUNT + i), "byte " + i);
                }
            }
        });
    }

    @Test
    void aGraphCacheReplaysEvictsAndDestroysRealGraphs() {
        cluster.run(ctx -> {
            Communicator comm = ctx.comm();
            Stream s = ctx.stream();
            try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ARENA);
                    DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ARENA)) {
                try (CallCheck checks = new CallCheck(comm, s, "Buckets");
                        GraphCache cache = new GraphCache(
                                comm,
                                s,
                                "Buckets",
                                "bucket",
                                2,
                                GraphCacheOverflow.WARN,
                                args -> comm.allReduce(
                                        send, args[0], recv, args[0], args[1], DataType.FLOAT32, ReduceOp.SUM, s))) {
                    cache.capture(0, 8);
                    long[][] calls = {{0, 8}, {8, 8}, {16, 4}, {8, 8}, {0, 8}};
                    for (int round = 0; round < calls.length; round++) {
                        checks.agree("bucket", "@AllReduce", calls[round]);
                        float[] values = new float[ARENA];
                        for (int i = 0; i < ARENA; i++) {
                            values[i] = 100 * round + i;
                        }
                        send.copyFromHost(values);
                        recv.copyFromHost(new float[ARENA]);
                        cache.launch(calls[round]);
                        s.synchronize();
                        float[] want = new float[ARENA];
                        System.arraycopy(
                                values, (int) calls[round][0], want, (int) calls[round][0], (int) calls[round][1]);
                        float[] got = new float[ARENA];
                        recv.copyToHost(got);
                        assertArrayEquals(want, got, "round " + round);
                    }
                    assertEquals(
                            comm.peersConnectedAtInit()
                                    ? new GraphCacheStats(4, 2, 2, 2, 2)
                                    // each tuple's first call ran eagerly; (8, 8) and (0, 8) were captured at their
                                    // second
                                    : new GraphCacheStats(2, 0, 0, 2, 2),
                            cache.stats());
                }
            }
        });
    }
}
