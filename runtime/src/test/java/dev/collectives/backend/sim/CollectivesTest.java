package dev.collectives.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Stream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every collective × data type × reduce op × a few counts (uneven splits and fewer elements than ranks included),
 * out of place and in place, against {@link Reference}, at 1, 2, 3, 4 and 8 ranks.
 */
class CollectivesTest {
    private static final long[] COUNTS = {1, 7, 1003};

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void allReduceEveryTypeAndOp(int ranks) {
        runCases(
                ranks,
                (ctx, type, op, count, salt) -> {
                    boolean inPlace = salt % 3 == 0;
                    try (Buffers b = new Buffers(ctx, salt, type, count, count, inPlace, 0)) {
                        ctx.comm().allReduce(b.send, b.recv, count, type, op, ctx.stream());
                        long[] expected = new long[(int) count];
                        for (int i = 0; i < count; i++) {
                            expected[i] = Reference.reduce(type, op, column(type, ctx.size(), i, salt));
                        }
                        b.expect(expected, "allReduce " + op);
                    }
                },
                true);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void reduceEveryTypeAndOp(int ranks) {
        runCases(
                ranks,
                (ctx, type, op, count, salt) -> {
                    int root = salt % ctx.size();
                    boolean inPlace = salt % 3 == 0;
                    try (Buffers b = new Buffers(ctx, salt, type, count, count, inPlace, 0)) {
                        ctx.comm().reduce(b.send, b.recv, count, type, op, root, ctx.stream());
                        if (ctx.rank() == root) {
                            long[] expected = new long[(int) count];
                            for (int i = 0; i < count; i++) {
                                expected[i] = Reference.reduce(type, op, column(type, ctx.size(), i, salt));
                            }
                            b.expect(expected, "reduce " + op + " to root " + root);
                        } else {
                            b.expectUntouched("reduce " + op + " on a non-root rank");
                        }
                    }
                },
                true);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void reduceScatterEveryTypeAndOp(int ranks) {
        runCases(
                ranks,
                (ctx, type, op, recvCount, salt) -> {
                    int n = ctx.size();
                    boolean inPlace = salt % 3 == 0;
                    try (Buffers b =
                            new Buffers(ctx, salt, type, recvCount * n, recvCount, inPlace, ctx.rank() * recvCount)) {
                        ctx.comm().reduceScatter(b.send, b.recv, recvCount, type, op, ctx.stream());
                        long[] expected = new long[(int) recvCount];
                        for (int i = 0; i < recvCount; i++) {
                            expected[i] = Reference.reduce(type, op, column(type, n, ctx.rank() * recvCount + i, salt));
                        }
                        b.expect(expected, "reduceScatter " + op);
                    }
                },
                true);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void allGatherEveryType(int ranks) {
        runCases(
                ranks,
                (ctx, type, op, sendCount, salt) -> {
                    int n = ctx.size();
                    boolean inPlace = salt % 3 == 0;
                    try (Buffers b =
                            new Buffers(ctx, salt, type, sendCount, sendCount * n, inPlace, ctx.rank() * sendCount)) {
                        ctx.comm().allGather(b.send, b.recv, sendCount, type, ctx.stream());
                        long[] expected = new long[(int) (sendCount * n)];
                        for (int r = 0; r < n; r++) {
                            for (int i = 0; i < sendCount; i++) {
                                expected[(int) (r * sendCount + i)] = Reference.value(type, r, i, salt);
                            }
                        }
                        b.expect(expected, "allGather");
                    }
                },
                false);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void broadcastEveryType(int ranks) {
        runCases(
                ranks,
                (ctx, type, op, count, salt) -> {
                    int root = salt % ctx.size();
                    boolean inPlace = salt % 3 == 0;
                    try (Buffers b = new Buffers(ctx, salt, type, count, count, inPlace, 0)) {
                        ctx.comm().broadcast(b.send, b.recv, count, type, root, ctx.stream());
                        long[] expected = new long[(int) count];
                        for (int i = 0; i < count; i++) {
                            expected[i] = Reference.value(type, root, i, salt);
                        }
                        b.expect(expected, "broadcast from root " + root);
                    }
                },
                false);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void allToAllEveryType(int ranks) {
        runCases(
                ranks,
                (ctx, type, op, count, salt) -> {
                    int n = ctx.size();
                    boolean inPlace = salt % 3 == 0;
                    try (Buffers b = new Buffers(ctx, salt, type, count * n, count * n, inPlace, 0)) {
                        ctx.comm().allToAll(b.send, b.recv, count, type, ctx.stream());
                        long[] expected = new long[(int) (count * n)];
                        for (int j = 0; j < n; j++) {
                            for (int i = 0; i < count; i++) {
                                // block j of my recv is block (my rank) of rank j's send
                                expected[(int) (j * count + i)] =
                                        Reference.value(type, j, ctx.rank() * count + i, salt);
                            }
                        }
                        b.expect(expected, "allToAll");
                    }
                },
                false);
    }

    @Test
    void zeroCountsAndNonRootBuffersThatDoNotMatter() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                try (DeviceBuffer buffer = comm.allocate(Allocator.LEGACY, DataType.FLOAT32, 6)) {
                    comm.allReduce(buffer, buffer, 0, DataType.FLOAT32, ReduceOp.SUM, stream);
                    comm.allGather(buffer, buffer, 0, DataType.FLOAT32, stream);
                    comm.reduceScatter(buffer, buffer, 0, DataType.FLOAT32, ReduceOp.MAX, stream);
                    comm.allToAll(buffer, buffer, 0, DataType.FLOAT32, stream);
                    buffer.copyFromHost(new float[] {ctx.rank(), 1, 2, 3, 4, 5});
                    // a broadcast's send matters on the root only, a reduce's recv likewise
                    comm.broadcast(ctx.rank() == 2 ? buffer : null, buffer.slice(3, 3), 3, DataType.FLOAT32, 2, stream);
                    comm.reduce(
                            buffer.slice(0, 1),
                            ctx.rank() == 0 ? buffer.slice(1, 1) : null,
                            1,
                            DataType.FLOAT32,
                            ReduceOp.SUM,
                            0,
                            stream);
                    stream.synchronize();
                    float[] out = new float[6];
                    buffer.copyToHost(out);
                    assertEquals(2f, out[3]);
                    assertEquals(ctx.rank() == 0 ? 3f : 1f, out[1]);
                }
            });
        }
    }

    /** Element i of every rank's send buffer. */
    private static long[] column(DataType type, int ranks, long i, int salt) {
        long[] xs = new long[ranks];
        for (int r = 0; r < ranks; r++) {
            xs[r] = Reference.value(type, r, i, salt);
        }
        return xs;
    }

    @FunctionalInterface
    private interface Case {
        void run(RankContext ctx, DataType type, ReduceOp op, long count, int salt) throws Exception;
    }

    /** Runs {@code body} for every type (× every reduce op that suits it) × count, on every rank, in one run. */
    private static void runCases(int ranks, Case body, boolean reducing) {
        try (SimCluster cluster = SimBackend.cluster()
                .ranks(ranks)
                .timeout(Duration.ofSeconds(20))
                .build()) {
            cluster.run(ctx -> {
                int salt = 0;
                for (DataType type : DataType.values()) {
                    for (ReduceOp op : reducing ? ReduceOp.values() : new ReduceOp[] {null}) {
                        if (op != null && !op.suits(type)) {
                            continue;
                        }
                        for (long count : COUNTS) {
                            body.run(ctx, type, op, count, ++salt);
                        }
                    }
                }
            });
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
        }
    }

    /**
     * A rank's send and recv buffers for one case, filled with its test values (send) and a marker (recv). In
     * place, send is a view of recv at {@code inPlaceOffset} elements. Alternates LEGACY and MEM_ALLOC memory.
     */
    private static final class Buffers implements AutoCloseable {
        final DeviceBuffer send;
        final DeviceBuffer recv;
        private final List<DeviceBuffer> roots = new ArrayList<>();
        private final RankContext ctx;
        private final DataType type;
        private final long[] initialRecv;

        Buffers(
                RankContext ctx,
                int salt,
                DataType type,
                long sendCount,
                long recvCount,
                boolean inPlace,
                long inPlaceOffset) {
            this.ctx = ctx;
            this.type = type;
            Communicator comm = ctx.comm();
            Allocator allocator = salt % 2 == 0 ? Allocator.LEGACY : Allocator.MEM_ALLOC;
            long[] sendValues = new long[(int) sendCount];
            for (int i = 0; i < sendCount; i++) {
                sendValues[i] = Reference.value(type, ctx.rank(), i, salt);
            }
            if (inPlace) {
                long total = Math.max(recvCount, inPlaceOffset + sendCount);
                DeviceBuffer whole = comm.allocate(allocator, type, total);
                roots.add(whole);
                recv = whole.slice(0, recvCount);
                send = whole.slice(inPlaceOffset, sendCount);
            } else {
                send = comm.allocate(allocator, type, sendCount);
                recv = comm.allocate(allocator, type, recvCount);
                roots.add(send);
                roots.add(recv);
            }
            initialRecv = new long[(int) recvCount];
            java.util.Arrays.fill(initialRecv, 0x5AL & Reference.mask(type));
            recv.copyFromHost(Reference.toBytes(type, initialRecv));
            send.copyFromHost(Reference.toBytes(type, sendValues));
            if (inPlace) {
                // the send values overwrote part of recv
                long[] now = read(recv);
                System.arraycopy(now, 0, initialRecv, 0, initialRecv.length);
            }
        }

        private long[] read(DeviceBuffer buffer) {
            byte[] bytes = new byte[(int) buffer.sizeBytes()];
            buffer.copyToHost(bytes);
            return Reference.fromBytes(type, bytes);
        }

        void expect(long[] expected, String what) {
            Stream stream = ctx.stream();
            stream.synchronize();
            long[] actual = read(recv);
            for (int i = 0; i < expected.length; i++) {
                if (actual[i] != expected[i]) {
                    fail(what + " of " + expected.length + " x " + type + " at " + ctx.size() + " ranks: rank "
                            + ctx.rank() + ", element " + i + ": expected 0x" + Long.toHexString(expected[i]) + " ("
                            + Reference.decodeDouble(type, expected[i]) + "), got 0x" + Long.toHexString(actual[i])
                            + " (" + Reference.decodeDouble(type, actual[i]) + ")");
                }
            }
        }

        void expectUntouched(String what) {
            expect(initialRecv, what);
        }

        @Override
        public void close() {
            roots.forEach(DeviceBuffer::close);
        }
    }
}
