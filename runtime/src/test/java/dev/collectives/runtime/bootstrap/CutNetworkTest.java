package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.collectives.runtime.bootstrap.server.JobServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A sim job of three processes served by a {@link JobServer}, whose rank 1 runs in a network namespace of its
 * own ({@link NetworkNamespace}): its link is brought down while every rank steps allreduces. The server hears no
 * heartbeat from it and excludes it; the survivors name it, shrink it away and step on; when the link comes back,
 * rank 1 learns that it was excluded. Where this host refuses {@code ip netns}, the test is skipped saying why.
 */
class CutNetworkTest {
    private static final int SIZE = 3;
    private static final int CUT = 1;

    private final List<ChildRank> children = new ArrayList<>();
    private NetworkNamespace namespace;
    private JobServer server;

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
        FrozenRanks job = new FrozenRanks(endpoint, SIZE, CUT, children, true);
        server = job.serve();
        List<ChildRank> ranks = new ArrayList<>();
        for (int r = 0; r < SIZE; r++) {
            ranks.add(job.start(r, r == CUT ? namespace.launcher() : List.of(), "shrink", Map.of()));
        }
        ranks.forEach(rank -> rank.await("STEPPING", FrozenRanks.LONG));
        ChildRank cut = ranks.remove(CUT);
        long cutAt = System.nanoTime();
        namespace.cut();
        ranks.forEach(survivor -> job.assertNamedForSilence(survivor, namespace.inside(), cutAt));
        namespace.restore();
        ranks.forEach(job::assertShrunkAndStepped);
        job.assertExcluded(cut);
    }
}
