package dev.collectives.backend.sim;

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
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The element-offset forms of every collective: each op reads from its send offset and writes from its recv offset
 * of INT32 arenas, every element of the recv arena is compared (what lies outside the op stays untouched), at 1,
 * 2, 3, 4 and 8 ranks; offsets outside the buffer are refused on the calling rank before any work.
 */
class OffsetsTest {
    private static final int SEND_OFFSET = 3;
    private static final int RECV_OFFSET = 5;
    private static final int COUNT = 7;
    private static final int UNTOUCHED = -1;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void allReduce(int ranks) {
        check(
                ranks,
                COUNT,
                COUNT,
                (comm, send, recv, stream) -> comm.allReduce(
                        send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, DataType.INT32, ReduceOp.SUM, stream),
                (rank, n, i) -> sumOverRanks(n, SEND_OFFSET + i));
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void allGather(int ranks) {
        check(
                ranks,
                COUNT,
                COUNT * ranks,
                (comm, send, recv, stream) ->
                        comm.allGather(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, DataType.INT32, stream),
                (rank, n, i) -> value(i / COUNT, SEND_OFFSET + i % COUNT));
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void reduceScatter(int ranks) {
        check(
                ranks,
                COUNT * ranks,
                COUNT,
                (comm, send, recv, stream) -> comm.reduceScatter(
                        send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, DataType.INT32, ReduceOp.SUM, stream),
                (rank, n, i) -> sumOverRanks(n, SEND_OFFSET + rank * COUNT + i));
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void broadcast(int ranks) {
        int root = ranks - 1;
        check(
                ranks,
                COUNT,
                COUNT,
                (comm, send, recv, stream) ->
                        comm.broadcast(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, DataType.INT32, root, stream),
                (rank, n, i) -> value(root, SEND_OFFSET + i));
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void reduce(int ranks) {
        check(
                ranks,
                COUNT,
                COUNT,
                (comm, send, recv, stream) -> comm.reduce(
                        send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, DataType.INT32, ReduceOp.SUM, 0, stream),
                (rank, n, i) -> rank == 0 ? sumOverRanks(n, SEND_OFFSET + i) : UNTOUCHED);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void allToAll(int ranks) {
        check(
                ranks,
                COUNT * ranks,
                COUNT * ranks,
                (comm, send, recv, stream) ->
                        comm.allToAll(send, SEND_OFFSET, recv, RECV_OFFSET, COUNT, DataType.INT32, stream),
                (rank, n, i) -> value(i / COUNT, SEND_OFFSET + rank * COUNT + i % COUNT));
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void sendToNextReceiveFromPrevious(int ranks) {
        check(
                ranks,
                COUNT,
                COUNT,
                (comm, send, recv, stream) -> {
                    int n = comm.size();
                    comm.groupStart();
                    comm.send(send, SEND_OFFSET, COUNT, DataType.INT32, (comm.rank() + 1) % n, stream);
                    comm.recv(recv, RECV_OFFSET, COUNT, DataType.INT32, (comm.rank() + n - 1) % n, stream);
                    comm.groupEnd();
                },
                (rank, n, i) -> value((rank + n - 1) % n, SEND_OFFSET + i));
    }

    /** The offset counts elements of the op's type, not of the buffer's: 2 FLOAT32 into a UINT8 buffer is byte 8. */
    @Test
    void offsetCountsElementsOfTheOpsType() {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            cluster.run(ctx -> {
                try (DeviceBuffer bytes = ctx.comm().allocate(Allocator.LEGACY, DataType.UINT8, 16)) {
                    bytes.copyFromHost(new byte[16]);
                    try (DeviceBuffer one = ctx.comm().allocate(Allocator.LEGACY, DataType.FLOAT32, 1)) {
                        one.copyFromHost(new float[] {1.5f});
                        ctx.comm().allReduce(one, 0, bytes, 2, 1, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                        ctx.stream().synchronize();
                    }
                    float[] floats = new float[4];
                    bytes.view(0, DataType.FLOAT32, 4).copyToHost(floats);
                    assertArrayEquals(new float[] {0, 0, 1.5f, 0}, floats);
                }
            });
        }
    }

    @Test
    void offsetsOutsideTheBufferAreRefusedBeforeAnyWork() {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                try (DeviceBuffer buffer = comm.allocate(Allocator.LEGACY, DataType.INT32, 10)) {
                    buffer.copyFromHost(new int[10]);
                    assertRefused(
                            "send offset -1",
                            () -> comm.allReduce(buffer, -1, buffer, 0, 1, DataType.INT32, ReduceOp.SUM, stream));
                    assertRefused(
                            "recv offset 11",
                            () -> comm.allReduce(buffer, 0, buffer, 11, 0, DataType.INT32, ReduceOp.SUM, stream));
                    // in the buffer, but the op reaches past its end
                    assertRefused(
                            "holds 4 bytes",
                            () -> comm.allReduce(buffer, 0, buffer, 9, 2, DataType.INT32, ReduceOp.SUM, stream));
                    assertRefused("send offset", () -> comm.send(buffer, Long.MAX_VALUE, 1, DataType.INT32, 0, stream));
                    assertRefused("recv buffer", () -> comm.recv(buffer, 5, 6, DataType.INT32, 0, stream));
                    // nothing was enqueued: the stream is clean and the buffer as it was
                    stream.synchronize();
                    int[] after = new int[10];
                    buffer.copyToHost(after);
                    assertArrayEquals(new int[10], after);
                    // the last element and an empty op at the very end are in bounds
                    comm.allReduce(buffer, 9, buffer, 9, 1, DataType.INT32, ReduceOp.SUM, stream);
                    comm.allReduce(buffer, 10, buffer, 10, 0, DataType.INT32, ReduceOp.SUM, stream);
                    stream.synchronize();
                }
            });
        }
    }

    private static void assertRefused(String fragment, Runnable op) {
        CollectivesException e = assertThrows(CollectivesException.class, op::run);
        assertNull(e.rule(), e.getMessage());
        assertTrue(e.getMessage().startsWith("rank 0: ") && e.getMessage().contains(fragment), e.getMessage());
    }

    /** Element {@code i} of rank {@code rank}'s send arena. */
    private static int value(int rank, int i) {
        return rank * 1000 + i;
    }

    private static int sumOverRanks(int ranks, int i) {
        return 1000 * ranks * (ranks - 1) / 2 + ranks * i;
    }

    @FunctionalInterface
    private interface Op {
        void issue(Communicator comm, DeviceBuffer send, DeviceBuffer recv, Stream stream);
    }

    /** Element {@code i} of the op's result on {@code rank}, counted from the recv offset. */
    @FunctionalInterface
    private interface Expected {
        int at(int rank, int ranks, int i);
    }

    /**
     * Runs {@code op} on send and recv arenas with room for the op at its offset and 4 spare elements after, and
     * compares the whole recv arena: {@code expected} inside the op, {@link #UNTOUCHED} outside.
     */
    private static void check(int ranks, int sendCount, int recvCount, Op op, Expected expected) {
        try (SimCluster cluster = SimBackend.cluster().ranks(ranks).build()) {
            cluster.run(ctx -> checkRank(ctx, sendCount, recvCount, op, expected));
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
        }
    }

    private static void checkRank(RankContext ctx, int sendCount, int recvCount, Op op, Expected expected) {
        Communicator comm = ctx.comm();
        int sendArena = SEND_OFFSET + sendCount + 4;
        int recvArena = RECV_OFFSET + recvCount + 4;
        try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.INT32, sendArena);
                DeviceBuffer recv = comm.allocate(Allocator.LEGACY, DataType.INT32, recvArena)) {
            int[] sendValues = new int[sendArena];
            Arrays.setAll(sendValues, i -> value(ctx.rank(), i));
            send.copyFromHost(sendValues);
            int[] recvValues = new int[recvArena];
            Arrays.fill(recvValues, UNTOUCHED);
            recv.copyFromHost(recvValues);
            op.issue(comm, send, recv, ctx.stream());
            ctx.stream().synchronize();
            int[] want = recvValues.clone();
            for (int i = 0; i < recvCount; i++) {
                want[RECV_OFFSET + i] = expected.at(ctx.rank(), ctx.size(), i);
            }
            int[] got = new int[recvArena];
            recv.copyToHost(got);
            assertArrayEquals(want, got, "rank " + ctx.rank() + " of " + ctx.size());
        }
    }
}
