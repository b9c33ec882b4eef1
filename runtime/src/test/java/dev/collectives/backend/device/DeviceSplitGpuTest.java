package dev.collectives.backend.device;

import static dev.collectives.backend.device.GpuFixture.RANKS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.bootstrap.TestRanks;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * ncclCommSplit and ncclCommShrink (or their MCCL twins) through Communicator, on two GPUs or two processes on one.
 */
@Tag("gpu")
@ExtendWith(GpuFixture.ProcessesOnOneGpu.class)
class DeviceSplitGpuTest {
    @Test
    void splitRanksByKeyAndTheChildReducesOnTheParentsStream() {
        try (TestRanks ranks = GpuFixture.ranks()) {
            ranks.run(ctx -> {
                try (Communicator child = ctx.comm().split(0, -ctx.rank()).orElseThrow()) {
                    assertEquals(RANKS - 1 - ctx.rank(), child.rank(), "ranked by key, the reverse of the parent");
                    assertArrayEquals(new float[] {0 + 1}, allReduceOfParentRanks(ctx, child));
                }
            });
        }
    }

    @Test
    void aRankWithNoColorGetsNoChildAndClosingTheParentClosesOpenChildren() {
        AtomicReferenceArray<Communicator> children = new AtomicReferenceArray<>(RANKS);
        TestRanks ranks = GpuFixture.ranks();
        ranks.run(ctx -> {
            Optional<Communicator> child = ctx.comm().split(ctx.rank() == 1 ? Communicator.NO_COLOR : 0, 0);
            assertEquals(ctx.rank() == 0, child.isPresent());
            child.ifPresent(c -> {
                assertEquals(1, c.size());
                children.set(ctx.rank(), c);
            });
        });
        boolean rankZeroHere = ranks.here().anyMatch(rank -> rank == 0);
        ranks.close();
        if (rankZeroHere) {
            assertThrows(CollectivesException.class, children.get(0)::createStream);
            children.get(0).close();
        }
    }

    @Test
    void shrinkLeavesOutTheExcludedRankOrSaysTheLibraryLacksIt() {
        try (TestRanks ranks = GpuFixture.ranks()) {
            ranks.run(ctx -> {
                if (ctx.rank() == 1) {
                    return; // excluded: it calls nothing, and rank 0 does not wait for it
                }
                DeviceCommunicator comm = (DeviceCommunicator) ctx.comm();
                if (!comm.library().has(NativeLibrary.Slots.COMM_SHRINK)) {
                    CollectivesException e = assertThrows(CollectivesException.class, () -> comm.shrink(1));
                    assertTrue(
                            e.getMessage().contains("CommShrink is not available in this library version"),
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
