package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sim job of processes served by a {@link RendezvousServer}, whose middle rank's process is stopped ({@code kill
 * -STOP}) while every rank steps allreduces: the server hears no heartbeat from it, declares it dead and excludes it;
 * every survivor's step fails naming it, and the survivors shrink it away, or take in a replacement, and run checked
 * steps. The stopped process, resumed, fails saying it was excluded.
 */
class FrozenRankTest {
    private static final Duration LONG = Duration.ofSeconds(90);
    /** Short, so that the test is quick; long enough that no living rank misses it, even with the cores busy. */
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(4);

    private final List<ChildRank> children = new ArrayList<>();
    private final String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
    private RendezvousServer server;

    @AfterEach
    void stop() {
        children.forEach(ChildRank::close);
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 4})
    void theSurvivorsOfAStoppedRankNameItShrinkItAwayAndStepOn(int size) {
        int frozen = size / 2;
        List<ChildRank> survivors = stopRank(size, frozen, "shrink");
        for (ChildRank rank : survivors) {
            assertTrue(
                    rank.await("SHRUNK", LONG).startsWith("SHRUNK sim communicator"),
                    rank.lastLines(5).toString());
            assertEquals(
                    "STEPS " + FrozenRankProcess.STEPS + " checked on " + (size - 1) + " ranks",
                    rank.await("STEPS", LONG));
            rank.awaitExit(0);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 4})
    void theSurvivorsOfAStoppedRankTakeInAReplacementAndStepOn(int size) {
        int frozen = size / 2;
        List<ChildRank> survivors = stopRank(size, frozen, "replace");
        ChildRank replacement = start(frozen, size, "replace", Map.of("COLLECTIVES_REPLACEMENT", "1"));
        survivors.add(replacement);
        for (ChildRank rank : survivors) {
            assertEquals(
                    "STEPS " + FrozenRankProcess.STEPS + " checked on " + size + " ranks", rank.await("STEPS", LONG));
            rank.awaitExit(0);
        }
    }

    /**
     * Starts the job, stops rank {@code frozen} once every rank steps, checks that every survivor's step failed
     * naming it for want of heartbeats, resumes it and checks that it failed saying it was excluded; returns the
     * survivors.
     */
    private List<ChildRank> stopRank(int size, int frozen, String recovery) {
        server = RendezvousServer.start(
                RendezvousEndpoint.parse(endpoint), size, RankThreadsForTests.TOKEN, LONG, HEARTBEAT_TIMEOUT);
        List<ChildRank> ranks = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            ranks.add(start(r, size, recovery, Map.of()));
        }
        ranks.forEach(rank -> rank.await("STEPPING", LONG));
        ChildRank stopped = ranks.remove(frozen);
        stopped.signal("STOP");
        for (ChildRank rank : ranks) {
            String lost = rank.await("LOST", LONG);
            assertTrue(
                    lost.contains("rank " + frozen + " at /127.0.0.1:")
                            && lost.contains("is gone: no heartbeat for 4 s while the job ran"),
                    lost);
        }
        stopped.signal("CONT");
        String failed = stopped.await("FAILED", LONG);
        assertTrue(
                failed.contains("rank " + frozen + " was excluded from the job at " + endpoint
                        + ": no heartbeat for 4 s; only a replacement may take its place"),
                failed);
        stopped.awaitExit(3);
        return ranks;
    }

    private ChildRank start(int rank, int size, String recovery, Map<String, String> settings) {
        Map<String, String> variables = new HashMap<>(settings);
        variables.put("COLLECTIVES_RANK", String.valueOf(rank));
        variables.put("COLLECTIVES_WORLD_SIZE", String.valueOf(size));
        variables.put("COLLECTIVES_RENDEZVOUS", endpoint);
        variables.put("COLLECTIVES_RENDEZVOUS_SERVER", "standalone");
        variables.put("COLLECTIVES_JOB_TOKEN", RankThreadsForTests.TOKEN);
        variables.put("COLLECTIVES_BOOTSTRAP_TIMEOUT", "60s");
        variables.put("COLLECTIVES_SIM_TIMEOUT", "60s");
        variables.put("FROZEN_RANK", String.valueOf(size / 2));
        ChildRank child = ChildRank.start("rank " + rank, FrozenRankProcess.class, variables, recovery);
        children.add(child);
        return child;
    }
}
