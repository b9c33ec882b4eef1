package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.runtime.bootstrap.server.Liveness;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which members a server declares silent, on a clock the test moves. */
class LivenessTest {
    private static final Timeouts TIMEOUTS = new Timeouts(Duration.ofSeconds(60), Duration.ofSeconds(6));
    private static final Duration TIMEOUT = TIMEOUTS.heartbeat();

    private long now = 1_000;
    private final Liveness liveness = new Liveness(TIMEOUTS, () -> now);

    /** Members {@code ranks} joined and beat through their start: from now on the heartbeat timeout applies. */
    private void settled(int... ranks) {
        for (int r : ranks) {
            liveness.heard(r);
        }
        for (long beaten = 0; beaten <= TIMEOUTS.startupWindow().toNanos(); beaten += TIMEOUT.toNanos() / 2) {
            now += TIMEOUT.toNanos() / 2;
            for (int r : ranks) {
                liveness.heard(r);
            }
        }
    }

    @Test
    void aMemberIsSilentOnlyOnceNothingCameForLongerThanTheTimeout() {
        settled(1, 2);
        now += TIMEOUT.toNanos();
        assertEquals(List.of(), liveness.silent());
        liveness.heard(2);
        now += 1;
        assertEquals(List.of(1), liveness.silent());
    }

    @Test
    void aStartingMemberMayBeSilentThreeSecondsLongerBeforeItIsDeclaredDead() {
        settled(0);
        liveness.heard(1); // joins now: its JVM is young
        liveness.heard(0);
        now += TIMEOUT.toNanos() + 1;
        assertEquals(List.of(0), liveness.silent(), "a settled member is silent after one timeout");
        now += TIMEOUTS.startupSilence().minus(TIMEOUT).toNanos() - 1;
        assertEquals(List.of(), liveness.silent(), "a starting member is not, before 3 s more");
        now += 1;
        assertEquals(List.of(1), liveness.silent());
    }

    @Test
    void aMemberPastItsStartIsHeldToTheTimeoutAgain() {
        liveness.heard(1);
        now += TIMEOUTS.startupWindow().toNanos();
        liveness.heard(1);
        assertEquals(Optional.of(TIMEOUT.plusNanos(1)), liveness.untilNextSilence());
        now += TIMEOUT.toNanos() + 1;
        assertEquals(List.of(1), liveness.silent());
    }

    @Test
    void aBusyMemberWhoseBeatsComeLateButWithinTheTimeoutIsNeverSilent() {
        settled(0, 1, 2, 3);
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
        settled(0, 3);
        liveness.forget(3);
        now += 2 * TIMEOUT.toNanos();
        assertEquals(List.of(0), liveness.silent());
        liveness.heard(3); // the replacement starts anew
        liveness.forget(0);
        assertEquals(List.of(), liveness.silent());
        now += TIMEOUTS.startupSilence().toNanos() + 1;
        assertEquals(List.of(3), liveness.silent());
    }

    @Test
    void theNextSilenceFallsDueWhenTheLeastRecentlyHeardMemberPassesItsAllowance() {
        assertEquals(Optional.empty(), liveness.untilNextSilence());
        settled(1, 2);
        liveness.heard(1);
        now += 100;
        liveness.heard(2);
        assertEquals(Optional.of(TIMEOUT.minusNanos(99)), liveness.untilNextSilence());
        liveness.heard(1);
        assertEquals(Optional.of(TIMEOUT.plusNanos(1)), liveness.untilNextSilence());
        liveness.heard(5); // starting: due later than the others
        assertEquals(Optional.of(TIMEOUT.plusNanos(1)), liveness.untilNextSilence());
        now += TIMEOUT.toNanos() + 1;
        assertEquals(Optional.of(Duration.ZERO), liveness.untilNextSilence());
    }

    @Test
    void aSilentMemberIsReportedOnceUntilItIsHeardFromAgain() {
        settled(1);
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
