package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.RankContext;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static dev.collectives.backend.device.GpuFixture.RANKS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ncclCommSplit and ncclCommShrink (or their MCCL twins) through Communicator, on two GPUs. */
@Tag("gpu")
class DeviceSplitGpuTest {
    @Test
    void splitRanksByKeyAndTheChildReducesOnTheParentsStream() {
        int[] childRanks = new int[RANKS];
        float[][] sums = new float[RANKS][];
        try (LocalCluster cluster = GpuFixture.backend().local(RANKS)) {
            cluster.run(ctx -> {
                try (Communicator child = ctx.comm().split(0, -ctx.rank()).orElseThrow()) {
                    childRanks[ctx.rank()] = child.rank();
                    sums[ctx.rank()] = allReduceOfParentRanks(ctx, child);
                }
            });
        }
        assertArrayEquals(new int[] {1, 0}, childRanks);
        for (float[] sum : sums) {
            assertArrayEquals(new float[] {0 + 1}, sum);
        }
    }

    @Test
    void aRankWithNoColorGetsNoChildAndClosingTheParentClosesOpenChildren() {
        Communicator[] children = new Communicator[RANKS];
        LocalCluster cluster = GpuFixture.backend().local(RANKS);
        cluster.run(ctx -> {
            Optional<Communicator> child = ctx.comm().split(ctx.rank() == 1 ? Communicator.NO_COLOR : 0, 0);
            assertEquals(ctx.rank() == 0, child.isPresent());
            child.ifPresent(c -> {
                assertEquals(1, c.size());
                children[ctx.rank()] = c;
            });
        });
        cluster.close();
        assertThrows(CollectivesException.class, children[0]::createStream);
        children[0].close();
    }

    @Test
    void shrinkLeavesOutTheExcludedRankOrSaysTheLibraryLacksIt() {
        try (LocalCluster cluster = GpuFixture.backend().local(RANKS)) {
            cluster.run(ctx -> {
                if (ctx.rank() == 1) {
                    return; // excluded: it calls nothing, and rank 0 does not wait for it
                }
                DeviceCommunicator comm = (DeviceCommunicator) ctx.comm();
                if (!comm.library().has(NativeLibrary.Slots.COMM_SHRINK)) {
                    CollectivesException e = assertThrows(CollectivesException.class, () -> comm.shrink(1));
                    assertTrue(e.getMessage().contains("CommShrink is not available in this library version"),
                            e.getMessage());
                    return;
                }
                try (Communicator alone = comm.shrink(1)) {
                    assertEquals(0, alone.rank());
                    assertEquals(1, alone.size());
                    assertArrayEquals(new float[] {0}, allReduceOfParentRanks(ctx, alone));
                }
            });
        }
    }

    /** An allreduce on {@code comm} of one element, the rank in the parent, in memory of the parent. */
    private static float[] allReduceOfParentRanks(RankContext ctx, Communicator comm) {
        try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1)) {
            buffer.copyFromHost(new float[] {ctx.rank()});
            comm.allReduce(buffer, buffer, 1, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
            ctx.stream().synchronize();
            float[] out = new float[1];
            buffer.copyToHost(out);
            return out;
        }
    }
}
