package dev.collectives.examples.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.External;
import dev.collectives.annotation.Registration;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * Two externals may be parts of one allocation, which only run time sees (R7): an op from one into the other must
 * then coincide with itself or lie apart, also where its offset is an expression, over a dim (checked at bind) or
 * over the step's parameters (checked at each call, before anything is issued).
 */
class ExternalsOfOneAllocationTest {
    /** {@code in} and {@code out} are given as block[0, 8) and block[2, 10) of one 16-float block. */
    @CollectivePipeline(registration = Registration.NONE)
    interface Shifted {
        @Dim
        long shift();

        @External(type = DataType.FLOAT32, count = 8)
        DeviceBuffer in();

        @External(type = DataType.FLOAT32, count = 8)
        DeviceBuffer out();

        /** in[shift, shift + 2) into out[0, 2), which is block[2, 4). */
        @AllReduce(send = "in", sendOffsetExpr = "shift", recv = "out", count = 2)
        void sum();

        /** in[off, off + 2) into out[0, 2). */
        @AllReduce(send = "in", sendOffsetExpr = "off", recv = "out", count = 2)
        void sumFrom(long off);
    }

    private static CollectiveExternalsOfOneAllocationTest_Shifted bind(
            RankContext rank, DeviceBuffer block, long shift) {
        return CollectiveExternalsOfOneAllocationTest_Shifted.binder(rank.comm(), rank.stream())
                .shift(shift)
                .in(block.slice(0, 8))
                .out(block.slice(2, 8))
                .bind();
    }

    @Test
    void aDimThatMakesTheRangesOverlapInTheAllocationFailsBindOnEveryRank() {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(2);
        Ranks.run(2, rank -> {
            try (DeviceBuffer block = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 16)) {
                failures.set(rank.rank(), assertThrows(CollectivesException.class, () -> bind(rank, block, 1)));
            }
        });
        for (int r = 0; r < 2; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R7_ARENA, e.rule(), e.getMessage());
            assertTrue(e.getMessage().contains("@AllReduce #1 in sum() (on one allocation)"), e.getMessage());
        }
    }

    @Test
    void rangesInPlaceOrApartInTheAllocationSum() {
        Ranks.run(2, rank -> {
            for (long shift : new long[] {2, 4}) {
                try (DeviceBuffer block = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 16);
                        var p = bind(rank, block, shift)) {
                    block.copyFromHost(Ranks.ramp(rank.rank(), 16));
                    p.sum();
                    rank.stream().synchronize();
                    float[] expected = new float[2];
                    for (int i = 0; i < 2; i++) {
                        expected[i] = 100f + 2 * (shift + i);
                    }
                    Ranks.assertFloats(expected, p.out(), "out after sum() with shift " + shift);
                }
            }
        });
    }

    @Test
    void argumentsThatMakeTheRangesOverlapFailTheCallOnEveryRankAndOthersRun() {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(2);
        Ranks.run(2, rank -> {
            try (DeviceBuffer block = rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 16);
                    var p = bind(rank, block, 4)) {
                failures.set(rank.rank(), assertThrows(CollectivesException.class, () -> p.sumFrom(1)));
                block.copyFromHost(Ranks.ramp(rank.rank(), 16));
                p.sumFrom(4);
                rank.stream().synchronize();
                Ranks.assertFloats(new float[] {108, 110}, p.out(), "out after sumFrom(4)");
            }
        });
        for (int r = 0; r < 2; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R7_ARENA, e.rule(), e.getMessage());
            assertTrue(e.getMessage().contains("@AllReduce #1 in sumFrom() (on one allocation)"), e.getMessage());
        }
    }
}
