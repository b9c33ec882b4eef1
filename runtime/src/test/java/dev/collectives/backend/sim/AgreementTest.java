package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertEveryRank;
import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Stream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the ranks of one call must agree on (R14, R1, R2, R4): each disagreement fails every rank, naming values. */
class AgreementTest {
    private static final DataType F32 = DataType.FLOAT32;

    @Test
    void r14DifferentCountsFailEveryRank() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer send = ctx.comm().allocate(Allocator.LEGACY, F32, 16);
                        DeviceBuffer recv = ctx.comm().allocate(Allocator.LEGACY, F32, 16)) {
                    ctx.comm().allReduce(send, recv, ctx.rank() == 2 ? 8 : 16, F32, ReduceOp.SUM, ctx.stream());
                    ctx.stream().synchronize();
                }
            });
            assertEveryRank(f, Rule.R14_SHAPE, "count differs", "rank 0: 16", "rank 1: 16", "rank 2: 8");
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    void r14DifferentOpsTypesReduceOpsAndRootsFailEveryRank() {
        expectShapeError(
                (comm, send, recv, stream) -> {
                    if (comm.rank() == 0) {
                        comm.allReduce(send, recv, 4, F32, ReduceOp.SUM, stream);
                    } else {
                        comm.allGather(send, recv, 4, F32, stream);
                    }
                },
                "op differs",
                "rank 0: allReduce",
                "rank 1: allGather");
        expectShapeError(
                (comm, send, recv, stream) ->
                        comm.allReduce(send, recv, 4, comm.rank() == 0 ? F32 : DataType.INT32, ReduceOp.SUM, stream),
                "data type differs",
                "rank 0: FLOAT32",
                "rank 1: INT32");
        expectShapeError(
                (comm, send, recv, stream) ->
                        comm.reduceScatter(send, recv, 2, F32, comm.rank() == 0 ? ReduceOp.MAX : ReduceOp.MIN, stream),
                "reduce op differs",
                "rank 0: MAX",
                "rank 1: MIN");
        expectShapeError(
                (comm, send, recv, stream) -> comm.broadcast(send, recv, 4, F32, comm.rank(), stream),
                "root differs",
                "rank 0: 0",
                "rank 1: 1");
    }

    @Test
    void afterAMismatchTheNextCallStillMatches() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer send = ctx.comm().allocate(Allocator.LEGACY, F32, 4);
                        DeviceBuffer recv = ctx.comm().allocate(Allocator.LEGACY, F32, 4)) {
                    ctx.comm().allReduce(send, recv, 3 + ctx.rank(), F32, ReduceOp.SUM, ctx.stream());
                    try {
                        ctx.stream().synchronize();
                    } finally {
                        send.copyFromHost(new float[] {1, 2, 3, 4});
                        ctx.comm().allReduce(send, recv, 4, F32, ReduceOp.SUM, ctx.stream());
                        ctx.stream().synchronize();
                        float[] out = new float[4];
                        recv.copyToHost(out);
                        assertArrayEquals(new float[] {2, 4, 6, 8}, out);
                    }
                }
            });
            assertEveryRank(f, Rule.R14_SHAPE, "count differs");
        }
    }

    @Test
    @SuppressWarnings("try") // the registration handles are only there to be closed
    void r1RegisteredOnSomeRanksOnlyFailsEveryRank() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                Communicator comm = ctx.comm();
                try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                        RegistrationHandle s = ctx.rank() == 1 ? null : comm.register(send);
                        RegistrationHandle r = ctx.rank() == 1 ? null : comm.register(recv)) {
                    comm.allReduce(send, recv, 8, F32, ReduceOp.SUM, ctx.stream());
                    ctx.stream().synchronize();
                }
            });
            assertEveryRank(
                    f,
                    Rule.R1_MIXED,
                    "registered buffers on some ranks only",
                    "rank 0: true",
                    "rank 1: false",
                    "rank 2: true");
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    @SuppressWarnings("try") // the registration handles are only there to be closed
    void r1SendRegisteredRecvNotFailsEveryRank() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                Communicator comm = ctx.comm();
                try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                        RegistrationHandle s = comm.register(send)) {
                    comm.allReduce(send, recv, 8, F32, ReduceOp.SUM, ctx.stream());
                    ctx.stream().synchronize();
                }
            });
            assertEveryRank(f, Rule.R1_MIXED, "rank 0 passes a registered send buffer", "unregistered recv buffer");
        }
    }

    @Test
    void r2GraphRegisteredBuffersAtDifferentHeadOffsetsFailEveryRank() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                try (DeviceBuffer arena = comm.allocate(Allocator.MEM_ALLOC, F32, 64);
                        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                    DeviceBuffer send = arena.slice(ctx.rank() == 1 ? 8 : 0, 8);
                    stream.beginCapture();
                    comm.allReduce(send, recv, 8, F32, ReduceOp.SUM, stream);
                    try (Graph graph = stream.endCapture();
                            GraphExec exec = graph.instantiate()) {
                        exec.launch(stream);
                        stream.synchronize();
                    }
                }
            });
            assertEveryRank(
                    f, Rule.R2_OFFSET, "graph registration", "send head offset differs", "rank 0: 0", "rank 1: 32");
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    /**
     * At capture the library registers legacy memory ({@code cudaMalloc}) too when the legacy-registration variable
     * is "1", as NCCL does: an op from legacy memory into VMM memory is then registered on both sides, and mixed (R1)
     * without it. (NCCL ran such pipelines where sim, which took legacy memory as never registered, refused them.)
     */
    @ParameterizedTest(name = "legacy variable {0}")
    @CsvSource(
            value = {"1", "null"},
            nullValues = "null")
    void r1LegacyMemoryIsGraphRegisteredWhenTheLegacyVariableSaysSo(String variable) {
        try (SimCluster cluster = SimBackend.cluster()
                .ranks(2)
                .environment(SimConfig.LEGACY_REGISTER_VARIABLE, variable)
                .build()) {
            Throwable[] f = failures(cluster, ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                try (DeviceBuffer send = comm.allocate(Allocator.LEGACY, F32, 8);
                        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                    float[] values = new float[8];
                    Arrays.fill(values, ctx.rank() + 1);
                    send.copyFromHost(values);
                    stream.beginCapture();
                    comm.allReduce(send, recv, 8, F32, ReduceOp.SUM, stream);
                    try (Graph graph = stream.endCapture();
                            GraphExec exec = graph.instantiate()) {
                        exec.launch(stream);
                        stream.synchronize();
                    }
                    float[] sums = new float[8];
                    recv.copyToHost(sums);
                    float[] three = new float[8];
                    Arrays.fill(three, 3f);
                    assertArrayEquals(three, sums);
                }
            });
            if (variable == null) {
                assertEveryRank(f, Rule.R1_MIXED, "allReduce", "unregistered send buffer", "registered recv buffer");
            } else {
                for (Throwable failure : f) {
                    assertNull(failure);
                }
            }
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    @SuppressWarnings("try") // the registration handles are only there to be closed
    void r2LocalRegistrationChecksOffsetsOnlyWithMtlinkSharp() {
        for (boolean mtlinkSharp : new boolean[] {true, false}) {
            try (SimCluster cluster =
                    SimBackend.cluster().ranks(2).mtlinkSharp(mtlinkSharp).build()) {
                Throwable[] f = failures(cluster, ctx -> {
                    Communicator comm = ctx.comm();
                    try (DeviceBuffer arena = comm.allocate(Allocator.MEM_ALLOC, F32, 64);
                            RegistrationHandle h = comm.register(arena)) {
                        DeviceBuffer send = arena.slice(0, 8);
                        DeviceBuffer recv = arena.slice(ctx.rank() == 0 ? 16 : 24, 8);
                        comm.allReduce(send, recv, 8, F32, ReduceOp.SUM, ctx.stream());
                        ctx.stream().synchronize();
                    }
                });
                if (mtlinkSharp) {
                    assertEveryRank(
                            f,
                            Rule.R2_OFFSET,
                            "MTLink SHARP registration",
                            "recv head offset differs",
                            "rank 0: 64",
                            "rank 1: 96");
                } else {
                    assertNull(f[0]);
                    assertNull(f[1]);
                }
            }
        }
    }

    @Test
    void r4GraphOnSomeRanksAndEagerOnOthersFailsEveryRank() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                Communicator comm = ctx.comm();
                Stream stream = ctx.stream();
                try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, F32, 8);
                        DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, F32, 8)) {
                    if (ctx.rank() == 0) {
                        stream.beginCapture();
                        comm.allReduce(send, recv, 8, F32, ReduceOp.SUM, stream);
                        try (Graph graph = stream.endCapture();
                                GraphExec exec = graph.instantiate()) {
                            exec.launch(stream);
                            stream.synchronize();
                        }
                    } else {
                        comm.allReduce(send, recv, 8, F32, ReduceOp.SUM, stream);
                        stream.synchronize();
                    }
                }
            });
            assertEveryRank(f, Rule.R4_GRAPH_CAPTURE, "launched from a graph differs", "rank 0: true", "rank 1: false");
        }
    }

    @FunctionalInterface
    private interface Call {
        void issue(Communicator comm, DeviceBuffer send, DeviceBuffer recv, Stream stream);
    }

    private static void expectShapeError(Call call, String... fragments) {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer send = ctx.comm().allocate(Allocator.LEGACY, F32, 16);
                        DeviceBuffer recv = ctx.comm().allocate(Allocator.LEGACY, F32, 16)) {
                    call.issue(ctx.comm(), send, recv, ctx.stream());
                    ctx.stream().synchronize();
                }
            });
            assertEveryRank(f, Rule.R14_SHAPE, fragments);
            assertEquals(0, cluster.usage().allocations());
        }
    }
}
