package dev.collectives.examples.pipelines;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The phases line a survivor prints reads back as it was, and says each phase beside the death. */
class RecoveryPhasesTest {
    @Test
    void aSurvivorsLineReadsBackAndDescribesItsPhasesBesideTheDeath() {
        RecoveryPhases phases = new RecoveryPhases(1_000_025, 40, 12, 3, 1500);
        String log = "step 2 failed: rank 1 is gone\n" + phases.line() + "\nrecovered: 3 steps among the survivors\n";

        assertEquals(Optional.of(phases), RecoveryPhases.parse(log));
        assertEquals(55, phases.failureToFirstStep());
        assertEquals(
                "death -> heard 25 ms, heard -> new communicator 40 ms, -> bound 12 ms, -> first checked step 3 ms"
                        + " (failure -> first step 55 ms); start -> bound 1500 ms",
                phases.describe(RecoveryPhases.deathAt(
                        "halting rank 1 as its step 2 begins, at 1000000 ms since the" + " epoch\n")));
        assertEquals(
                "death -> heard ?, heard -> new communicator 40 ms, -> bound 12 ms, -> first checked step 3 ms"
                        + " (failure -> first step 55 ms); start -> bound 1500 ms",
                phases.describe(Optional.empty()));
    }

    @Test
    void theReplacementsStartToBoundReadsBack() {
        assertEquals(
                Optional.of(1369L),
                RecoveryPhases.replacementStartToBound(
                        "replacement: rank 1 of 2\nreplacement: this process's start -> bound 1369 ms\n"));
        assertEquals(Optional.empty(), RecoveryPhases.parse("no phases here\n"));
    }
}
