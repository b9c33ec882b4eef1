package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.runtime.bootstrap.server.Liveness;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which members a server declares silent, on a clock the test moves. */
class LivenessTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(6);

    private long now = 1_000;
    private final Liveness liveness = new Liveness(TIMEOUT, () -> now);

    @Test
    void aMemberIsSilentOnlyOnceNothingCameForLongerThanTheTimeout() {
        liveness.heard(1);
        liveness.heard(2);
        now += TIMEOUT.toNanos();
        assertEquals(List.of(), liveness.silent());
        liveness.heard(2);
        now += 1;
        assertEquals(List.of(1), liveness.silent());
    }

    @Test
    void aBusyMemberWhoseBeatsComeLateButWithinTheTimeoutIsNeverSilent() {
        for (int r = 0; r < 4; r++) {
            liveness.heard(r);
        }
        for (int beat = 0; beat < 1_000; beat++) {
            now += TIMEOUT.toNanos() - 1 - beat % 7; // each beat late by almost the whole timeout
            for (int r = 0; r < 4; r++) {
                liveness.heard(r);
            }
            assertEquals(List.of(), liveness.silent(), "after beat " + beat);
        }
    }

    @Test
    void aMemberThatLeftOrDiedIsNotWatchedUntilItsReplacementIsHeardFrom() {
        liveness.heard(0);
        liveness.heard(3);
        liveness.forget(3);
        now += 2 * TIMEOUT.toNanos();
        assertEquals(List.of(0), liveness.silent());
        liveness.heard(3);
        liveness.forget(0);
        assertEquals(List.of(), liveness.silent());
        now += TIMEOUT.toNanos() + 1;
        assertEquals(List.of(3), liveness.silent());
    }

    @Test
    void theNextSilenceFallsDueWhenTheLeastRecentlyHeardMemberPassesTheTimeout() {
        assertEquals(Optional.empty(), liveness.untilNextSilence());
        liveness.heard(1);
        now += 100;
        liveness.heard(2);
        assertEquals(Optional.of(TIMEOUT.minusNanos(99)), liveness.untilNextSilence());
        liveness.heard(1);
        assertEquals(Optional.of(TIMEOUT.plusNanos(1)), liveness.untilNextSilence());
        now += TIMEOUT.toNanos() + 1;
        assertEquals(Optional.of(Duration.ZERO), liveness.untilNextSilence());
    }

    @Test
    void aSilentMemberIsReportedOnceUntilItIsHeardFromAgain() {
        liveness.heard(1);
        now += TIMEOUT.toNanos() + 1;
        assertEquals(List.of(1), liveness.silent());
        assertEquals(List.of(), liveness.silent());
        assertEquals(Optional.empty(), liveness.untilNextSilence());
    }

    @Test
    void membersThatNeverJoinedAreNotWatched() {
        now += 10 * TIMEOUT.toNanos();
        assertEquals(List.of(), liveness.silent());
    }
}
