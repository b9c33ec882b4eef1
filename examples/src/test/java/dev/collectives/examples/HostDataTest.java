package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The host-side data and checks every example relies on to make a wrong result visible. */
class HostDataTest {
    @Test
    void valuesDifferAcrossRanksIterationsAndTheOffsetsTheExamplesUse() {
        assertNotEquals(HostData.value(1, 0, 0), HostData.value(1, 1, 0));
        assertNotEquals(HostData.value(1, 0, 0), HostData.value(2, 0, 0));
        for (long offset : new long[] {1, 256, 1024, 2048, 4096}) {
            assertNotEquals(HostData.value(1, 0, 0), HostData.value(1, 0, offset), "offset " + offset);
        }
    }

    @Test
    void sumsOverAsManyRanksAsTheExamplesAllowAreExactInFloat32() {
        for (long index = 0; index < 5000; index++) {
            double exact = 0;
            for (int r = 0; r < HostData.EXACT_RANKS; r++) {
                exact += HostData.value(2, r, index);
            }
            assertTrue(exact < (1 << 24), "below 2^24, where float32 stops holding every integer: " + exact);
            assertEquals(exact, HostData.sum(2, HostData.EXACT_RANKS, index), 0.0, "index " + index);
        }
    }

    @Test
    void ranksGetDistinctValuesAtEveryIndex() {
        for (long index = 0; index < 100; index++) {
            Set<Float> seen = new HashSet<>();
            for (int r = 0; r < 64; r++) {
                assertTrue(seen.add(HostData.value(1, r, index)), "rank " + r + " index " + index);
            }
        }
    }

    @Test
    void compareReportsTheFirstDifferenceWithBothValues() {
        float[] expected = {1, 2, 3, 4};
        Check check = HostData.compare(3, "recvbuff", expected, new float[] {1, 2, 7, 8});

        assertFalse(check.isOk());
        assertEquals("rank 3: recvbuff[2] expected 3.0 but was 7.0", check.text());
        assertEquals(
                "recvbuff[0, 4)",
                HostData.compare(3, "recvbuff", expected, expected.clone()).text());
    }

    @Test
    void eachIterationNamesTheIterationThatFailed() {
        Check check = Check.eachIteration(3, i -> i == 2 ? Check.mismatch(0, "x", 5, 1, 2) : Check.ok("x"));

        assertEquals("rank 0: x[5] expected 1 but was 2 in iteration 2", check.text());
        assertEquals(
                "x in each of 3 iterations",
                Check.eachIteration(3, i -> Check.ok("x")).text());
    }

    @Test
    void allReturnsTheFirstFailure() {
        Check first = Check.wrong(1, "userPointer()", "0x10", "0x20");
        Check check = Check.all(Check.ok("a"), first, Check.wrong(1, "b", 1, 2));

        assertEquals(first.text(), check.text());
        assertEquals("a; b", Check.all(Check.ok("a"), Check.ok("b")).text());
    }
}
