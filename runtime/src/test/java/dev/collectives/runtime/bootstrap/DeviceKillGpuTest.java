package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A two-process nccl job in which rank 1's process dies during a step ({@link KillMidStepProcess}): rank 0, blocked
 * in that step's synchronize, must raise naming rank 1 as gone (the job watch hears of it when its connection to the
 * rendezvous ends), then close its buffers and communicator and exit normally. Needs 2 CUDA GPUs, or one with {@code -Dcollectives.test.sharedGpu=true} ({@link GpuJob}).
 */
@Tag("gpu")
class DeviceKillGpuTest {
    private static final int SYNC_TIMEOUT_SECONDS = 10;
    private static final Pattern RAISED = Pattern.compile("RAISED after (\\d+) ms: (.*)");
    private static final Pattern CLOSED = Pattern.compile("CLOSED in (\\d+) ms");
    private final List<ChildRank> children = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        children.forEach(ChildRank::close);
    }

    /**
     * Eager steps waited for with {@code synchronize}, and replays of a captured graph waited for with {@code
     * Event.await}, where the survivor once hung inside {@code ncclCommAbort}: the abort now runs behind it.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"eager", "graph"})
    void aRankKilledDuringAStepFailsTheOtherWithinTheSyncTimeoutAndItClosesEverything(String mode) {
        ChildRank survivor = killRankOneDuring(mode);
        Matcher closed = CLOSED.matcher(survivor.await("CLOSED", Duration.ofSeconds(60)));
        assertTrue(closed.matches());
        System.out.println(mode + ": rank 0 then closed its buffers and communicator in " + closed.group(1) + " ms");
        survivor.awaitExit(0);
    }

    /**
     * After the failure of a graph step, the survivor closes its buffers and graph and shrinks the dead rank away:
     * the aborted communicator is replaced by one formed anew among the survivors through the job's rendezvous, on
     * which an allreduce runs; no free after the abort poisons the device.
     */
    @Test
    void theSurvivorOfARankKilledDuringAGraphStepShrinksItAwayThroughTheRendezvous() {
        ChildRank survivor = killRankOneDuring("graph", "shrink");
        String shrunk = survivor.await("SHRUNK", Duration.ofSeconds(120));
        assertTrue(
                shrunk.endsWith(" (shrunk from rank 0 of 2 without rank 1, formed anew among the survivors through the "
                        + "job's rendezvous) SUM 1.0"),
                shrunk);
        survivor.await("CLOSED", Duration.ofSeconds(60));
        survivor.awaitExit(0);
    }

    /**
     * Starts the job with {@code arguments} after the victim and its step, kills rank 1 in step 50, and returns rank 0
     * once the failure reached it naming rank 1.
     */
    private ChildRank killRankOneDuring(String... arguments) {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        List<String> options = List.of("-Dcollectives.device.syncTimeoutSeconds=" + SYNC_TIMEOUT_SECONDS);
        List<String> args = new ArrayList<>(List.of("1", "50"));
        args.addAll(List.of(arguments));
        for (int rank = 1; rank >= 0; rank--) {
            children.add(
                    0,
                    GpuJob.start(
                            rank, "nccl", endpoint, KillMidStepProcess.class, options, args.toArray(String[]::new)));
        }
        ChildRank survivor = children.get(0);
        ChildRank victim = children.get(1);
        Duration limit = Duration.ofSeconds(120);
        survivor.await("STEPPING", limit);
        victim.await("HALTING at step 50", limit);
        victim.awaitExit(137);

        Matcher raised = RAISED.matcher(survivor.await("RAISED", Duration.ofSeconds(SYNC_TIMEOUT_SECONDS + 60)));
        assertTrue(raised.matches());
        String message = raised.group(2);
        System.out.println(
                arguments[0] + ": rank 0 raised " + raised.group(1) + " ms after its last completed step: " + message);
        // the job watch names the dead rank, whether it or the library's asynchronous error came first
        assertTrue(
                message.startsWith("[REMOTE_ERROR 6] rank 0: ")
                        && message.contains("the job failed: rank 1 at ")
                        && message.contains(" is gone: its connection ended while the job ran"),
                message);
        return survivor;
    }
}
