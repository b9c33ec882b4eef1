package dev.collectives.processor.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Proofs for all dims and ranks at least 1 and parameters at least 0: true, false for every value, or unknown. */
class ProverTest {
    private static Verdict atMost(int ranks, String value, String bound) throws ExprException {
        return new Prover(ranks).atMost(ExprParserTest.parse(value), ExprParserTest.parse(bound));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // proved: what views laid out as sums and quotients rely on
                "elements / ranks * ranks | elements | TRUE",
                "ranks * (elements / ranks) | elements | TRUE",
                "1 | elements | TRUE",
                "1 | ranks | TRUE",
                "0 | offset | TRUE",
                "elements | elements * ranks | TRUE",
                "elements + 1 | 2 * elements | TRUE",
                "elements * elements | elements * elements + offset | TRUE",
                "0 | elements % ranks | TRUE",
                "0 | elements / ranks | TRUE",
                "0 | floorDiv(elements, ranks) | TRUE",
                "floorDiv(elements * 4, 4) | elements | TRUE",
                // wrong for every value: a compile error
                "elements + 1 | elements | FALSE",
                "2 * elements | elements | FALSE",
                "1 | 0 | FALSE",
                "offset + elements + 1 | elements | FALSE",
                // depends on the values: a check at bind or at the call
                "offset + n | elements | UNKNOWN",
                "1 | n | UNKNOWN",
                "1 | elements / ranks | UNKNOWN",
                "elements | 1024 | UNKNOWN",
                "elements / ranks | elements / 2 | UNKNOWN",
                "0 | elements - offset | UNKNOWN",
                // overflow of a coefficient proves nothing
                "9223372036854775807 * elements + 9223372036854775807 * elements | 1 | UNKNOWN",
                // constants past a long are decided exactly
                "9223372036854775800 + 16 | 64 | FALSE",
                "9223372036854775807 * 2 | 9223372036854775807 * 3 | TRUE",
                "9223372036854775800 + 4 * ranks | 64 | FALSE"
            })
    void provesRefutesOrLeavesForTheCheck(String value, String bound, Verdict verdict) throws ExprException {
        assertEquals(verdict, atMost(0, value, bound), value + " <= " + bound);
    }

    @Test
    void constantsPastALongAreExactAndAlignmentIsDecidedOnThem() throws ExprException {
        Prover prover = new Prover(4);
        assertEquals(
                new BigInteger("9223372036854775816"),
                prover.exact(ExprParserTest.parse("9223372036854775800 + 4 * ranks")));
        assertNull(prover.exact(ExprParserTest.parse("9223372036854775800 + elements")));
        assertEquals(Verdict.TRUE, prover.aligned(ExprParserTest.parse("9223372036854775800 * 2"), 8));
        assertEquals(Verdict.FALSE, prover.aligned(ExprParserTest.parse("9223372036854775807 * 2"), 4));
        assertEquals(new BigInteger("-3"), prover.exact(ExprParserTest.parse("floorDiv(0 - 5, 2)")));
    }

    @Test
    void declaredRanksAreSubstituted() throws ExprException {
        assertEquals(Verdict.TRUE, atMost(4, "ranks * 2", "8"));
        assertEquals(Verdict.FALSE, atMost(4, "ranks * 2", "7"));
        assertEquals(Verdict.UNKNOWN, atMost(0, "ranks * 2", "8"));
        assertEquals(Verdict.TRUE, atMost(4, "elements / 4 * ranks", "elements"));
        assertEquals(Long.valueOf(256), new Prover(4).constant(ExprParserTest.parse("1024 / ranks")));
        assertNull(new Prover(0).constant(ExprParserTest.parse("1024 / ranks")));
    }

    @Test
    void alignmentIsProvedFromTheCoefficients() throws ExprException {
        Prover prover = new Prover(0);
        assertEquals(Verdict.TRUE, prover.aligned(ExprParserTest.parse("elements * 4 + 8"), 4));
        assertEquals(Verdict.UNKNOWN, prover.aligned(ExprParserTest.parse("elements * 2"), 4));
        assertEquals(Verdict.FALSE, prover.aligned(ExprParserTest.parse("6"), 4));
    }

    @Test
    void floorDivRoundsDownAsMathFloorDiv() throws ExprException {
        assertEquals(Long.valueOf(-3), new Prover(0).constant(ExprParserTest.parse("floorDiv(0 - 5, 2)")));
        assertEquals(Long.valueOf(250000), new Prover(4).constant(ExprParserTest.parse("floorDiv(1000003, ranks)")));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "1024 | ranks | 4 | TRUE",
                "1000003 | ranks | 4 | FALSE",
                "elements * 4 | 4 | 0 | TRUE",
                "elements * ranks | ranks | 0 | TRUE",
                "elements | ranks | 0 | UNKNOWN",
                "elements * 2 | 4 | 0 | UNKNOWN"
            })
    void divisionsWithoutRemainderAreProvedOrRefutedWhereTheyAreKnown(
            String dividend, String divisor, int ranks, Verdict verdict) throws ExprException {
        assertEquals(
                verdict,
                new Prover(ranks).divides(ExprParserTest.parse(dividend), ExprParserTest.parse(divisor)),
                dividend + " / " + divisor);
    }

    @Test
    void equalityIsAfterSimplification() throws ExprException {
        Prover prover = new Prover(0);
        assertTrue(prover.equal(ExprParserTest.parse("offset * 4 + 0"), ExprParserTest.parse("4 * offset")));
        assertFalse(prover.equal(ExprParserTest.parse("offset"), ExprParserTest.parse("n")));
    }
}
