package dev.collectives.tools.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.tools.differential.Comparison.Result;
import dev.collectives.tools.differential.Comparison.Verdict;
import dev.collectives.tools.differential.Output.Segment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What a rank's comparison of sim with the other backend says: agreement to the bit, agreement within the bound
 * only where the reduction order may differ, and a difference named by buffer, element and both values.
 */
class ComparisonTest {
    private static final Comparison.Sides NCCL = Comparison.Sides.against("nccl");
    /** Four int32 elements, then two float32 ones: a block with a view of another type in it. */
    private static Output block(int third, float last) {
        ByteBuffer bytes = ByteBuffer.allocate(24).order(ByteOrder.nativeOrder());
        bytes.putInt(0, 1)
                .putInt(4, -2)
                .putInt(8, third)
                .putInt(12, 4)
                .putFloat(16, 0.5f)
                .putFloat(20, last);
        return new Output(
                "call 1 s0(): b0",
                List.of(new Segment(0, 16, DataType.INT32), new Segment(16, 8, DataType.FLOAT32)),
                bytes.array());
    }

    private static Verdict compare(Output sim, Output other, Tolerance tolerance) {
        return Comparison.compare(
                "corpus p0001", 3, Outcome.ran(List.of(sim)), Outcome.ran(List.of(other)), NCCL, tolerance);
    }

    private static Tolerance sums(int ranks) {
        return new ReductionBound(ranks, Map.of(DataType.FLOAT32, Set.of(ReduceOp.SUM)));
    }

    @Test
    void equalBytesAgreeToTheBit() {
        Verdict v = compare(block(3, 1.25f), block(3, 1.25f), sums(8));

        assertEquals(Result.AGREE, v.result());
        assertTrue(v.bitExact());
        assertEquals("bit-exact", v.detail());
    }

    @Test
    void anIntegerThatDiffersIsNamedWithItsIndexAndBothValues() {
        Verdict v = compare(block(3, 1.25f), block(-7, 1.25f), sums(8));

        assertEquals(Result.DIFFER, v.result());
        assertEquals(3, v.rank());
        assertEquals(
                "call 1 s0(): b0, element 2 of the INT32 elements at byte 0 (byte 8): sim 3, nccl -7 "
                        + "(bit-exact expected)",
                v.detail());
    }

    @Test
    void aSumAtEightRanksMayDifferByTheBoundOnly() {
        float close = Math.nextUp(1.25f);
        Verdict within = compare(block(3, 1.25f), block(3, close), sums(8));
        Verdict beyond = compare(block(3, 1.25f), block(3, 1.5f), sums(8));

        assertEquals(Result.AGREE, within.result());
        assertFalse(within.bitExact());
        assertTrue(
                within.detail()
                        .startsWith("within the bound; largest difference 1.19e-07 (bound 1.53e-05) at "
                                + "call 1 s0(): b0, element 1 of the FLOAT32 elements at byte 16"),
                within.detail());
        assertEquals(Result.DIFFER, beyond.result());
        assertTrue(
                beyond.detail()
                        .endsWith("sim 1.25 (0x3fa00000), nccl 1.5 (0x3fc00000) (|difference| 0.250 > "
                                + "bound 1.53e-05)"),
                beyond.detail());
    }

    @Test
    void atTwoRanksOrOnSimAFloatMustBeBitExact() {
        float close = Math.nextUp(1.25f);

        assertEquals(
                Result.DIFFER,
                compare(block(3, 1.25f), block(3, close), sums(2)).result());
        assertEquals(
                Result.DIFFER,
                compare(block(3, 1.25f), block(3, close), Tolerance.EXACT).result());
        assertEquals(
                Result.DIFFER,
                compare(
                                block(3, 1.25f),
                                block(3, close),
                                new ReductionBound(8, Map.of(DataType.FLOAT32, Set.of(ReduceOp.MAX))))
                        .result(),
                "MAX rounds nothing");
    }

    @Test
    void failuresAgreeOnTheSameTagOnly() {
        Outcome r2 = Outcome.failed(CollectivesException.violation(Rule.R2_OFFSET, 1, "offsets differ"));
        Outcome r9 = Outcome.failed(CollectivesException.violation(Rule.R9_LEGACY, 1, "no opt-in"));

        Verdict same = Comparison.compare("wrap x", 1, r2, r2, NCCL, Tolerance.EXACT);
        Verdict different = Comparison.compare("wrap x", 1, r2, r9, NCCL, Tolerance.EXACT);
        Verdict ranOnlyThere = Comparison.compare("wrap x", 1, r2, Outcome.ran(List.of()), NCCL, Tolerance.EXACT);

        assertEquals(Result.AGREE, same.result());
        assertEquals("both failed with [R2 OFFSET]", same.detail());
        assertEquals(Result.DIFFER, different.result());
        assertTrue(
                different.detail().startsWith("sim failed with [R2 OFFSET]: [R2 OFFSET] rank 1: offsets differ"),
                different.detail());
        assertTrue(different.detail().contains("; nccl failed with [R9 LEGACY]: "), different.detail());
        assertEquals(Result.DIFFER, ranOnlyThere.result());
        assertTrue(ranOnlyThere.detail().endsWith("; nccl ran"), ranOnlyThere.detail());
    }

    @Test
    void simAgainstItselfNamesThreadsAndProcesses() {
        Verdict v = Comparison.compare(
                "corpus p0001",
                3,
                Outcome.ran(List.of(block(3, 1.25f))),
                Outcome.ran(List.of(block(4, 1.25f))),
                Comparison.Sides.against("sim"),
                Tolerance.EXACT);

        assertTrue(v.detail().endsWith(": sim in threads 3, sim in processes 4 (bit-exact expected)"), v.detail());
    }

    @Test
    void whatTheOtherBackendSkipsIsNotCompared() {
        Verdict v = Comparison.compare(
                "examples ib-sharp",
                0,
                Outcome.ran(List.of()),
                Outcome.skipped("needs IB SHARP (CollNet) enabled on the communicator"),
                NCCL,
                Tolerance.EXACT);

        assertEquals(Result.SKIPPED, v.result());
        assertEquals("nccl: needs IB SHARP (CollNet) enabled on the communicator", v.detail());
    }
}
