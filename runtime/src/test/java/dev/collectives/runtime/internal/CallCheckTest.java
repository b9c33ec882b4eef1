package dev.collectives.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.rules.Rule;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** When calls are checked, and what a mismatch says; the checks across ranks run in the sim's CallCheckSimTest. */
class CallCheckTest {
    @Test
    void theVariableMustListCalls() {
        assertFalse(CallCheck.listsCalls(null));
        assertFalse(CallCheck.listsCalls(""));
        assertFalse(CallCheck.listsCalls("call"));
        assertFalse(CallCheck.listsCalls("callsx,shapes"));
        assertTrue(CallCheck.listsCalls("calls"));
        assertTrue(CallCheck.listsCalls("CALLS"));
        assertTrue(CallCheck.listsCalls("shapes, calls"));
    }

    @Test
    void callsAreAlwaysCheckedWhereTheCheckIsCheapElsewhereOnRequest() {
        assertTrue(CallCheck.checks(capabilities(true), false));
        assertTrue(CallCheck.checks(capabilities(true), true));
        assertFalse(CallCheck.checks(capabilities(false), false));
        assertTrue(CallCheck.checks(capabilities(false), true));
    }

    private static Capabilities capabilities(boolean cheapCallChecks) {
        return new Capabilities("2.28.9", false, false, true, true, true, true, cheapCallChecks, false);
    }

    @Test
    void aCallIsDescribedAsTheStepWithItsArguments() {
        assertEquals("Buckets.bucket(0, 1024)", CallCheck.describe("Buckets", "bucket", new long[] {0, 1024}));
        assertEquals("Buckets.flush()", CallCheck.describe("Buckets", "flush", new long[0]));
    }

    @Test
    void aMismatchIsR14NamingTheStepAndEachRanksArguments() {
        byte[][] calls = {padded("Buckets.bucket(0, 1024)"), padded("Buckets.bucket(0, 512)")};
        CollectivesException e = CallCheck.mismatch(1, "Buckets", "bucket", calls);
        assertEquals(Rule.R14_SHAPE, e.rule());
        assertEquals(1, e.rank());
        assertEquals(
                "[R14 SHAPE] rank 1: the ranks called Buckets.bucket() with different arguments (rank 0: "
                        + "Buckets.bucket(0, 1024); rank 1: Buckets.bucket(0, 512)); every rank must call a step with the "
                        + "same ones (see docs/rules.md#r14-shape)",
                e.getMessage());
    }

    private static byte[] padded(String call) {
        return java.util.Arrays.copyOf(call.getBytes(StandardCharsets.UTF_8), CallCheck.DETAIL_BYTES);
    }
}
