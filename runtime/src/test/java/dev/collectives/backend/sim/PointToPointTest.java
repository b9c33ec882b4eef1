package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertCollectivesException;
import static dev.collectives.backend.sim.PerRank.assertContains;
import static dev.collectives.backend.sim.PerRank.assertEveryRank;
import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** send/recv: matched per pair in order, any order within a group, mismatches and missing peers reported. */
class PointToPointTest {
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void ringExchangeInAGroupInAnyOrder(int ranks) {
        try (SimCluster cluster = SimBackend.cluster().ranks(ranks).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                int next = (ctx.rank() + 1) % ctx.size();
                int previous = (ctx.rank() + ctx.size() - 1) % ctx.size();
                try (DeviceBuffer out = comm.allocate(Allocator.LEGACY, DataType.INT32, 5);
                        DeviceBuffer in = comm.allocate(Allocator.LEGACY, DataType.INT32, 5)) {
                    out.copyFromHost(new int[] {ctx.rank(), 1, 2, 3, -ctx.rank()});
                    comm.groupStart();
                    if (ctx.rank() % 2 == 0) {
                        comm.send(out, 5, DataType.INT32, next, ctx.stream());
                        comm.recv(in, 5, DataType.INT32, previous, ctx.stream());
                    } else {
                        comm.recv(in, 5, DataType.INT32, previous, ctx.stream());
                        comm.send(out, 5, DataType.INT32, next, ctx.stream());
                    }
                    comm.groupEnd();
                    ctx.stream().synchronize();
                    int[] got = new int[5];
                    in.copyToHost(got);
                    assertArrayEquals(new int[] {previous, 1, 2, 3, -previous}, got);
                }
            });
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void successiveSendsToOnePeerMatchItsRecvsInOrder() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                Communicator comm = ctx.comm();
                try (DeviceBuffer buffer = comm.allocate(Allocator.LEGACY, DataType.FLOAT64, 3)) {
                    if (ctx.rank() == 0) {
                        buffer.copyFromHost(new double[] {1, 2, 3});
                        comm.send(buffer.slice(0, 1), 1, DataType.FLOAT64, 1, ctx.stream());
                        comm.send(buffer.slice(1, 2), 2, DataType.FLOAT64, 1, ctx.stream());
                    } else {
                        comm.recv(buffer.slice(2, 1), 1, DataType.FLOAT64, 0, ctx.stream());
                        comm.recv(buffer.slice(0, 2), 2, DataType.FLOAT64, 0, ctx.stream());
                    }
                    ctx.stream().synchronize();
                    if (ctx.rank() == 1) {
                        double[] got = new double[3];
                        buffer.copyToHost(got);
                        assertArrayEquals(new double[] {2, 3, 1}, got);
                    }
                }
            });
        }
    }

    @Test
    void r14MismatchedSendAndRecvFailBothRanks() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.LEGACY, DataType.INT8, 16)) {
                    if (ctx.rank() == 0) {
                        ctx.comm().send(buffer, 16, DataType.INT8, 1, ctx.stream());
                    } else {
                        ctx.comm().recv(buffer, 8, DataType.INT8, 0, ctx.stream());
                    }
                    ctx.stream().synchronize();
                }
            });
            assertEveryRank(
                    f,
                    Rule.R14_SHAPE,
                    "send #0 from rank 0 to rank 1",
                    "send(16 x INT8, peer 1)",
                    "recv(8 x INT8, peer 0)");
        }
    }

    @Test
    void aSendNobodyReceivesTimesOutNamingThePeer() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(3).timeout(PerRank.SHORT).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.LEGACY, DataType.INT8, 4)) {
                    if (ctx.rank() == 0) {
                        ctx.comm().send(buffer, 4, DataType.INT8, 2, ctx.stream());
                        ctx.stream().synchronize();
                    }
                }
            });
            CollectivesException e = assertCollectivesException(f, 0);
            assertEquals(Result.REMOTE_ERROR, e.result());
            assertContains(
                    e.getMessage(),
                    "rank 0: send call #1 (send #0 from rank 0 to rank 2) failed",
                    "rank 2 posted no matching recv within 300 ms");
            assertNull(f[1]);
            assertNull(f[2]);
        }
    }

    @Test
    void aRankCanSendToItselfInAGroup() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            cluster.run(ctx -> {
                try (DeviceBuffer a = ctx.comm().allocate(Allocator.LEGACY, DataType.UINT64, 2);
                        DeviceBuffer b = ctx.comm().allocate(Allocator.LEGACY, DataType.UINT64, 2)) {
                    a.copyFromHost(new long[] {-1, 7});
                    ctx.comm().groupStart();
                    ctx.comm().recv(b, 2, DataType.UINT64, 0, ctx.stream());
                    ctx.comm().send(a, 2, DataType.UINT64, 0, ctx.stream());
                    ctx.comm().groupEnd();
                    ctx.stream().synchronize();
                    long[] got = new long[2];
                    b.copyToHost(got);
                    assertArrayEquals(new long[] {-1, 7}, got);
                }
            });
        }
    }
}
