package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.bootstrap.server.JobServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A sim job of processes served by a {@link JobServer} (of its own, or hosted by rank 0's process, the
 * default), whose middle rank's process is stopped ({@code kill
 * -STOP}) while every rank steps allreduces: the server hears no heartbeat from it, declares it dead and excludes it;
 * every survivor's step fails naming it, and the survivors shrink it away, or take in a replacement, and run checked
 * steps. The stopped process, resumed, fails saying it was excluded.
 */
class FrozenRankTest {
    private final List<ChildRank> children = new ArrayList<>();
    private final String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
    private JobServer server;

    @AfterEach
    void stop() {
        children.forEach(ChildRank::close);
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @CsvSource({"3, true", "4, true", "3, false", "4, false"})
    void theSurvivorsOfAStoppedRankNameItShrinkItAwayAndStepOn(int size, boolean standalone) {
        FrozenRanks job = new FrozenRanks(endpoint, size, size / 2, children, standalone);
        for (ChildRank survivor : stopMiddleRank(job, size, "shrink")) {
            job.assertShrunkAndStepped(survivor);
        }
    }

    @ParameterizedTest
    @CsvSource({"3, true", "4, true", "4, false"})
    void theSurvivorsOfAStoppedRankTakeInAReplacementAndStepOn(int size, boolean standalone) {
        FrozenRanks job = new FrozenRanks(endpoint, size, size / 2, children, standalone);
        List<ChildRank> ranks = stopMiddleRank(job, size, "replace");
        ranks.add(job.start(size / 2, List.of(), "replace", Map.of("COLLECTIVES_REPLACEMENT", "1")));
        for (ChildRank rank : ranks) {
            job.assertStepped(rank, size);
        }
    }

    /**
     * Starts the job, stops its middle rank once every rank steps, checks that every survivor's step failed naming it
     * for want of heartbeats, resumes it and checks that it failed saying it was excluded; returns the survivors.
     */
    private List<ChildRank> stopMiddleRank(FrozenRanks job, int size, String recovery) {
        server = job.serve();
        List<ChildRank> ranks = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            ranks.add(job.start(r, List.of(), recovery, Map.of()));
        }
        ranks.forEach(rank -> rank.await("STEPPING", FrozenRanks.LONG));
        ChildRank stopped = ranks.remove(size / 2);
        long stoppedAt = System.nanoTime();
        stopped.signal("STOP");
        ranks.forEach(survivor -> job.assertNamedForSilence(survivor, "127.0.0.1", stoppedAt));
        stopped.signal("CONT");
        job.assertExcluded(stopped);
        return ranks;
    }
}
