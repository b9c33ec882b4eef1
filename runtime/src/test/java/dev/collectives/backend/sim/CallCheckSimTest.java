package dev.collectives.backend.sim;

import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.internal.CallCheck;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.atomic.AtomicInteger;

import static dev.collectives.backend.sim.PerRank.assertEveryRank;
import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sim checks, always, that every rank calls a step with the same arguments (R14). */
class CallCheckSimTest {
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void ranksThatAgreePassAndLeaveNothingBehind(int ranks) {
        AtomicInteger passed = new AtomicInteger();
        try (SimCluster cluster = SimBackend.cluster().ranks(ranks).build()) {
            cluster.run(ctx -> {
                for (long n = 1; n <= 3; n++) {
                    CallCheck.agree(ctx.comm(), ctx.stream(), "Buckets", "bucket", "@AllReduce", 1024 * n, n);
                }
                CallCheck.agree(ctx.comm(), ctx.stream(), "Buckets", "flush", "@Broadcast");
                passed.incrementAndGet();
            });
            assertEquals(ranks, passed.get());
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4, 8})
    void oneRankWithOtherArgumentsFailsEveryRankNamingTheValues(int ranks) {
        try (SimCluster cluster = SimBackend.cluster().ranks(ranks).build()) {
            int odd = ranks - 1;
            Throwable[] failures = failures(cluster, ctx -> CallCheck.agree(ctx.comm(), ctx.stream(), "Buckets",
                    "bucket", "@AllReduce", 0, ctx.rank() == odd ? 512 : 1024));
            assertEveryRank(failures, Rule.R14_SHAPE, "Buckets.bucket() with different arguments",
                    "rank 0: Buckets.bucket(0, 1024)", "rank " + odd + ": Buckets.bucket(0, 512)");
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
        }
    }

    /** The check is the step's first exchange: when a peer is gone, the user's call is what failed, not the check. */
    @Test
    void aPeerGoneDuringTheCheckFailsTheStepNamingItAndItsOp() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            CollectivesException e = assertThrows(CollectivesException.class, () -> cluster.run(ctx -> {
                if (ctx.rank() == 1) {
                    ctx.comm().abort();
                    return;
                }
                CallCheck.agree(ctx.comm(), ctx.stream(), "Buckets", "bucket", "@AllReduce", 0, 8);
            }));
            assertTrue(e.getMessage().startsWith("rank 0 failed: [REMOTE_ERROR ") && e.getMessage().contains(
                    "] Buckets.bucket(0, 8) (@AllReduce) failed: the communicator was aborted"), e.getMessage());
            assertFalse(e.getMessage().contains("allGather"), e.getMessage());
        }
    }

    @Test
    void ranksCallingDifferentStepsFailEveryRank() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] failures = failures(cluster, ctx -> CallCheck.agree(ctx.comm(), ctx.stream(), "Buckets",
                    ctx.rank() == 0 ? "bucket" : "tail", "@AllReduce", 8));
            assertEveryRank(failures, Rule.R14_SHAPE, "rank 0: Buckets.bucket(8)", "rank 1: Buckets.tail(8)");
        }
    }
}
