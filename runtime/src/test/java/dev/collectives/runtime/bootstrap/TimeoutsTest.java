package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.BootstrapException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The control plane's waits follow from the operation and heartbeat timeouts, whatever a user sets them to. */
class TimeoutsTest {
    @Test
    void aLongHeartbeatTimeoutLengthensEveryWaitForNewsOfADeath() {
        Timeouts timeouts = new Timeouts(Duration.ofSeconds(120), Duration.ofSeconds(30));

        assertEquals(Duration.ofSeconds(5), timeouts.beatInterval());
        assertEquals(
                Duration.ofSeconds(38),
                timeouts.declaredDeadWithin(),
                "30 s of silence (33 s for a rank still starting), seen within a beat");
        assertEquals(Duration.ofSeconds(39), timeouts.deathWait(), "the death declared, then told within 1 s");
        assertEquals(Duration.ofSeconds(39), timeouts.verdictGrace());
        assertEquals(Duration.ofSeconds(4), timeouts.verdictWait(), "the stall told, 2 s of grace, the verdict told");
    }

    @Test
    void aCutOffRankAsksItsFateForTenSecondsWhateverItsShortHeartbeatTimeoutButNoLongerThanAnOperation() {
        assertEquals(Duration.ofSeconds(10), new Timeouts(Duration.ofSeconds(120), Duration.ofMillis(1500)).fateWait());
        assertEquals(Duration.ofSeconds(30), new Timeouts(Duration.ofSeconds(120), Duration.ofSeconds(30)).fateWait());
        assertEquals(Duration.ofSeconds(5), new Timeouts(Duration.ofSeconds(5), Duration.ofMillis(1500)).fateWait());
    }

    @Test
    void aShortOperationTimeoutShortensTheNoticeAndTheHandshake() {
        Timeouts timeouts = new Timeouts(Duration.ofMillis(300), Duration.ofSeconds(6));

        assertEquals(Duration.ofMillis(300), timeouts.notice());
        assertEquals(Duration.ofMillis(300), timeouts.handshake());
        assertEquals(Duration.ofMillis(300), timeouts.causeWait());
        assertEquals(Duration.ofMillis(2600), timeouts.verdictWait());
    }

    @Test
    void theBeatsOfAVeryShortHeartbeatTimeoutStillComeBeforeIt() {
        Timeouts timeouts = new Timeouts(Duration.ofSeconds(1), Duration.ofMillis(2));

        assertEquals(Duration.ofMillis(1), timeouts.beatInterval());
    }

    @Test
    void aTimeoutThatIsNotPositiveIsRefusedNamingIt() {
        BootstrapException zero =
                assertThrows(BootstrapException.class, () -> new Timeouts(Duration.ofSeconds(1), Duration.ZERO));
        assertTrue(zero.getMessage().contains("the heartbeat timeout PT0S is not positive"), zero.getMessage());
        BootstrapException negative = assertThrows(
                BootstrapException.class, () -> new Timeouts(Duration.ofSeconds(-1), Duration.ofSeconds(1)));
        assertTrue(
                negative.getMessage().contains("the bootstrap timeout PT-1S is not positive"), negative.getMessage());
    }
}
