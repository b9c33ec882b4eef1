package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.runtime.bootstrap.server.HangVerdict;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hang verdict, a pure function of the ranks' progress and the time. */
class HangVerdictTest {
    private static final Duration AFTER = Duration.ofSeconds(10);
    private static final long SECOND = 1_000_000_000L;

    /** Rank {@code rank}'s place in the communicator formed, of 3 ranks, waiting since {@code since} where it waits. */
    private static List<HangVerdict.Observed> at(long enqueued, long completed, String waitingIn, long since) {
        return List.of(
                new HangVerdict.Observed(new Progress.Place("formed", 3, enqueued, completed, waitingIn), since));
    }

    @Test
    void namesTheRankThatNeverEnqueuedWhatTheOthersWaitIn() {
        Map<Integer, List<HangVerdict.Observed>> ranks = Map.of(
                0, at(8, 7, "allReduce", 0),
                1, at(7, 7, "", 0),
                2, at(8, 7, "allReduce", 2 * SECOND));
        List<HangVerdict> verdicts = HangVerdict.judge(ranks, 12 * SECOND, AFTER);
        assertEquals(1, verdicts.size());
        assertEquals(
                "rank 1 never enqueued #8 allReduce of communicator formed (3 ranks); ranks 0 and 2 wait in it for 12.0 s",
                verdicts.get(0).describe());
    }

    @Test
    void noVerdictBeforeTheSetting() {
        Map<Integer, List<HangVerdict.Observed>> ranks =
                Map.of(0, at(8, 7, "allReduce", 0), 1, at(7, 7, "", 0), 2, at(8, 7, "allReduce", 0));
        assertEquals(List.of(), HangVerdict.judge(ranks, 9 * SECOND, AFTER));
        assertEquals(1, HangVerdict.judge(ranks, 10 * SECOND, AFTER).size());
    }

    @Test
    void onlyTheRanksThatWaitedPastTheSettingAreNamed() {
        Map<Integer, List<HangVerdict.Observed>> ranks =
                Map.of(0, at(8, 7, "allReduce", 0), 1, at(7, 7, "", 0), 2, at(8, 7, "allReduce", 5 * SECOND));
        assertEquals(
                "rank 1 never enqueued #8 allReduce of communicator formed (3 ranks); rank 0 waits in it for 11.0 s",
                HangVerdict.judge(ranks, 11 * SECOND, AFTER).get(0).describe());
    }

    @Test
    void ranksThatAllEnqueuedWhatTheyWaitInAreNoHangOfARank() {
        Map<Integer, List<HangVerdict.Observed>> ranks =
                Map.of(0, at(8, 7, "allReduce", 0), 1, at(8, 7, "allReduce", 0), 2, at(8, 7, "allReduce", 0));
        assertEquals(List.of(), HangVerdict.judge(ranks, 60 * SECOND, AFTER));
    }

    @Test
    void ranksThatMoveOnAreNoHang() {
        Map<Integer, List<HangVerdict.Observed>> ranks =
                Map.of(0, at(8, 8, "", 0), 1, at(7, 7, "", 0), 2, at(8, 8, "", 0));
        assertEquals(List.of(), HangVerdict.judge(ranks, 60 * SECOND, AFTER));
    }

    @Test
    void theLowestEntryWaitedInIsTheVerdictsAndCommunicatorsAreJudgedApart() {
        Map<Integer, List<HangVerdict.Observed>> ranks = Map.of(
                0,
                List.of(
                        new HangVerdict.Observed(new Progress.Place("formed", 3, 9, 6, "broadcast"), 0),
                        new HangVerdict.Observed(
                                new Progress.Place("formed > shrunk #0 without rank 2", 2, 4, 3, "send"), 0)),
                1,
                List.of(
                        new HangVerdict.Observed(new Progress.Place("formed", 3, 6, 6, ""), 0),
                        new HangVerdict.Observed(
                                new Progress.Place("formed > shrunk #0 without rank 2", 2, 3, 3, ""), 0)),
                2,
                List.of(new HangVerdict.Observed(new Progress.Place("formed", 3, 9, 6, "broadcast"), 0)));
        List<String> verdicts = HangVerdict.judge(ranks, 20 * SECOND, AFTER).stream()
                .map(HangVerdict::describe)
                .toList();
        assertEquals(
                List.of(
                        "rank 1 never enqueued #7 broadcast of communicator formed (3 ranks); ranks 0 and 2 wait in it"
                                + " for 20.0 s",
                        "rank 1 never enqueued #4 send of communicator formed > shrunk #0 without rank 2 (2 ranks); rank 0 waits in it for 20.0 s"),
                verdicts);
    }

    @Test
    void progressCrossesTheWireAsItWas() {
        Progress progress = new Progress(List.of(
                new Progress.Place("formed", 3, 8, 7, "allReduce"),
                new Progress.Place("formed > split #0 color 1", 2, 0, 0, "")));
        assertEquals(progress, Progress.decode(java.nio.ByteBuffer.wrap(progress.encode())));
        assertEquals(Progress.NONE, Progress.decode(java.nio.ByteBuffer.allocate(0)));
    }
}
