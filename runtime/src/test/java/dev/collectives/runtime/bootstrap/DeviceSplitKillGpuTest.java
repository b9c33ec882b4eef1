package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A three-process nccl job split into rank 0 alone and ranks 1 and 2, whose rank 2 dies once split
 * ({@link SplitKillProcess}): the job's watch aborts the child that holds rank 2, naming it in the job's numbering
 * and the child's, and the joined communicator, while rank 0's child, without rank 2, goes on. Needs 3 CUDA GPUs, or
 * one with {@code -Dcollectives.test.sharedGpu=true} ({@link GpuJob}).
 */
@Tag("gpu")
class DeviceSplitKillGpuTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private final List<ChildRank> ranks = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        ranks.forEach(ChildRank::close);
    }

    @Test
    void aDeathInASplitChildIsNamedThereAndAChildWithoutTheDeadRankGoesOn() {
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        for (int rank = 0; rank < 3; rank++) {
            ranks.add(ChildRank.start(
                    "rank " + rank,
                    SplitKillProcess.class,
                    GpuJob.variables(rank, 3, "nccl", endpoint, GpuJob.SHARED_GPU)));
        }
        ranks.get(2).await("HALTING", LIMIT);
        ranks.get(2).awaitExit(137);

        String child = ranks.get(1).await("RAISED", LIMIT);
        assertTrue(
                child.contains(
                                "the job failed: rank 2 of the job (rank 1 of this communicator, split with color 1) at ")
                        && child.contains(" is gone: its connection ended while the job ran"),
                child);
        String joined = ranks.get(0).await("RAISED", LIMIT);
        assertTrue(joined.contains("the job failed: rank 2 at "), joined);
        assertEquals("ALONE SUM 1.0", ranks.get(0).await("ALONE", LIMIT));
        for (int rank = 0; rank < 2; rank++) {
            ranks.get(rank).await("CLOSED", LIMIT);
            ranks.get(rank).awaitExit(0);
        }
    }
}
