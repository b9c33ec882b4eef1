package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The processes ({@link FrozenRankProcess}) of a sim job served by a {@link JobServer} (of its own, or hosted
 * by rank 0's process) whose rank {@code frozen} the test stops or cuts off, and what the test expects of them.
 */
final class FrozenRanks {
    static final Duration LONG = Duration.ofSeconds(90);
    /** The default: the tests show that it tells a stopped rank from a living one, even with the cores busy. */
    static final Duration HEARTBEAT_TIMEOUT = JobServer.DEFAULT_HEARTBEAT_TIMEOUT;

    private static final String NO_HEARTBEAT = "no heartbeat for " + Settings.formatDuration(HEARTBEAT_TIMEOUT);

    private final String endpoint;
    private final int size;
    private final int frozen;
    private final List<ChildRank> children;
    /** Whether a server of its own serves the job ({@link #serve}), else rank 0's process. */
    private final boolean standalone;

    /**
     * Processes of a job of {@code size} at {@code endpoint}, kept in {@code children} (which the test kills), served
     * by a {@code standalone} server or by rank 0's process.
     */
    FrozenRanks(String endpoint, int size, int frozen, List<ChildRank> children, boolean standalone) {
        this.endpoint = endpoint;
        this.size = size;
        this.frozen = frozen;
        this.children = children;
        this.standalone = standalone;
    }

    /** Serves the job, with {@link #HEARTBEAT_TIMEOUT}, where a server of its own serves it; else null. */
    JobServer serve() {
        return standalone
                ? JobServer.start(
                        RendezvousEndpoint.parse(endpoint), size, RankThreadsForTests.TOKEN, LONG, HEARTBEAT_TIMEOUT)
                : null;
    }

    /**
     * Starts rank {@code rank}'s process by {@code launcher} (none: directly), recovering as {@code recovery} says,
     * with {@code settings} beside the job's.
     */
    ChildRank start(int rank, List<String> launcher, String recovery, Map<String, String> settings) {
        Map<String, String> variables = new HashMap<>(settings);
        variables.put("COLLECTIVES_RANK", String.valueOf(rank));
        variables.put("COLLECTIVES_WORLD_SIZE", String.valueOf(size));
        variables.put("COLLECTIVES_RENDEZVOUS", endpoint);
        if (standalone) {
            variables.put("COLLECTIVES_RENDEZVOUS_SERVER", "standalone");
        }
        variables.put("COLLECTIVES_JOB_TOKEN", RankThreadsForTests.TOKEN);
        variables.put("COLLECTIVES_BOOTSTRAP_TIMEOUT", "60s");
        variables.put("COLLECTIVES_SIM_TIMEOUT", "60s");
        variables.put("FROZEN_RANK", String.valueOf(frozen));
        ChildRank child = ChildRank.start(
                launcher, "rank " + rank, FrozenRankProcess.class, List.of(), variables, false, recovery);
        children.add(child);
        return child;
    }

    /**
     * The survivor's step failed naming the frozen rank, at {@code address}, for want of heartbeats; prints how long
     * after {@code stoppedAt} (its {@link System#nanoTime()}) the survivor said so.
     */
    void assertNamedForSilence(ChildRank survivor, String address, long stoppedAt) {
        String lost = survivor.await("LOST", LONG);
        assertTrue(
                lost.contains("rank " + frozen + " at /" + address + ":")
                        && lost.contains("is gone: " + NO_HEARTBEAT + " "),
                lost);
        System.out.printf(
                "%s named rank %d %d ms after it was stopped (heartbeat timeout %s)%n",
                survivor,
                frozen,
                (survivor.arrivalOf("LOST") - stoppedAt) / 1_000_000,
                Settings.formatDuration(HEARTBEAT_TIMEOUT));
    }

    /** The survivor shrank the frozen rank away and ran its checked steps. */
    void assertShrunkAndStepped(ChildRank survivor) {
        assertTrue(
                survivor.await("SHRUNK", LONG).startsWith("SHRUNK sim communicator"),
                survivor.lastLines(5).toString());
        assertStepped(survivor, size - 1);
    }

    /** The process ran its checked steps on {@code ranks} ranks, and exited. */
    void assertStepped(ChildRank process, int ranks) {
        assertEquals(
                "STEPS " + FrozenRankProcess.STEPS + " checked on " + ranks + " ranks", process.await("STEPS", LONG));
        process.awaitExit(0);
    }

    /** The frozen rank, running again, failed saying that it was excluded for want of heartbeats. */
    void assertExcluded(ChildRank resumed) {
        String failed = resumed.await("FAILED", LONG);
        assertTrue(
                failed.contains("rank " + frozen + " was excluded from the job at " + endpoint + ": " + NO_HEARTBEAT
                        + "; only a replacement may take its place"),
                failed);
        resumed.awaitExit(3);
    }
}
