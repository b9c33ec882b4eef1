package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A sim job of three processes served by a {@link RendezvousServer}, whose rank 1 runs in a network namespace of its
 * own ({@link NetworkNamespace}): its link is brought down while every rank steps allreduces. The server hears no
 * heartbeat from it and excludes it; the survivors name it, shrink it away and step on; when the link comes back,
 * rank 1 learns that it was excluded. Where this host refuses {@code ip netns}, the test is skipped saying why.
 */
class CutNetworkTest {
    private static final Duration LONG = Duration.ofSeconds(90);
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(4);
    private static final int SIZE = 3;
    private static final int CUT = 1;

    private final List<ChildRank> children = new ArrayList<>();
    private NetworkNamespace namespace;
    private RendezvousServer server;

    @AfterEach
    void cleanUp() {
        children.forEach(ChildRank::close);
        if (server != null) {
            server.close();
        }
        if (namespace != null) {
            namespace.close();
        }
    }

    @Test
    void theSurvivorsOfARankCutOffTheNetworkRecoverAndItLearnsItWasExcludedWhenTheLinkComesBack() {
        NetworkNamespace.Result created = NetworkNamespace.create();
        assumeTrue(created.namespace() != null, created.refusal());
        namespace = created.namespace();
        String endpoint = "tcp://" + namespace.host() + ":" + RankThreadsForTests.freePort();
        server = RendezvousServer.start(
                RendezvousEndpoint.parse(endpoint), SIZE, RankThreadsForTests.TOKEN, LONG, HEARTBEAT_TIMEOUT);
        List<ChildRank> ranks = new ArrayList<>();
        for (int r = 0; r < SIZE; r++) {
            ranks.add(start(r, endpoint, r == CUT ? namespace.launcher() : List.of()));
        }
        ranks.forEach(rank -> rank.await("STEPPING", LONG));
        ChildRank cut = ranks.remove(CUT);
        namespace.cut();
        for (ChildRank rank : ranks) {
            String lost = rank.await("LOST", LONG);
            assertTrue(
                    lost.contains("rank 1 at /" + namespace.host().replaceFirst("\\.1$", ".2") + ":")
                            && lost.contains("is gone: no heartbeat for 4 s while the job ran"),
                    lost);
        }
        namespace.restore();
        for (ChildRank rank : ranks) {
            assertTrue(
                    rank.await("SHRUNK", LONG).startsWith("SHRUNK sim communicator"),
                    rank.lastLines(5).toString());
            assertEquals(
                    "STEPS " + FrozenRankProcess.STEPS + " checked on " + (SIZE - 1) + " ranks",
                    rank.await("STEPS", LONG));
            rank.awaitExit(0);
        }
        String failed = cut.await("FAILED", LONG);
        assertTrue(
                failed.contains("rank 1 was excluded from the job at " + endpoint
                        + ": no heartbeat for 4 s; only a replacement may take its place"),
                failed);
        cut.awaitExit(3);
    }

    private ChildRank start(int rank, String endpoint, List<String> launcher) {
        Map<String, String> variables = new HashMap<>();
        variables.put("COLLECTIVES_RANK", String.valueOf(rank));
        variables.put("COLLECTIVES_WORLD_SIZE", String.valueOf(SIZE));
        variables.put("COLLECTIVES_RENDEZVOUS", endpoint);
        variables.put("COLLECTIVES_RENDEZVOUS_SERVER", "standalone");
        variables.put("COLLECTIVES_JOB_TOKEN", RankThreadsForTests.TOKEN);
        variables.put("COLLECTIVES_BOOTSTRAP_TIMEOUT", "60s");
        variables.put("COLLECTIVES_SIM_TIMEOUT", "60s");
        variables.put("FROZEN_RANK", String.valueOf(CUT));
        ChildRank child = ChildRank.start(
                launcher, "rank " + rank, FrozenRankProcess.class, List.of(), variables, false, "shrink");
        children.add(child);
        return child;
    }
}
