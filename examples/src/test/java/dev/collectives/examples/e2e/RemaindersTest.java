package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * R13 on sim: a {@code /} in a size expression that leaves a remainder fails every rank, at bind when dims and
 * {@code ranks} give it, at the call when a step parameter does, instead of dropping the tail of the size; a
 * {@code floorDiv} rounds down on purpose.
 */
class RemaindersTest {
    private static final int RANKS = 4;
    /** Not a multiple of 4: a reducescatter of parameters / ranks would leave the last 3 unreduced. */
    private static final long PARAMETERS = 1_000_003;

    /** The gradients reduced into one shard per rank, and a bucket of the shards gathered back per call. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface Sharded {
        @Dim
        long parameters();

        @Buffer(type = DataType.FLOAT32, countExpr = "parameters")
        DeviceBuffer grads();

        @Buffer(type = DataType.FLOAT32, countExpr = "parameters / ranks")
        DeviceBuffer shard();

        @ReduceScatter(send = "grads", recv = "shard", recvCountExpr = "parameters / ranks", op = ReduceOp.SUM)
        void reduce();

        @AllGather(send = "shard", recv = "grads", sendCountExpr = "n / ranks")
        void gather(long n);
    }

    /** The same reducescatter rounded down on purpose: the tail of the gradients is left out. */
    @CollectivePipeline(registration = Registration.LOCAL)
    interface Floored {
        @Dim
        long parameters();

        @Buffer(type = DataType.FLOAT32, countExpr = "parameters")
        DeviceBuffer grads();

        @Buffer(type = DataType.FLOAT32, countExpr = "floorDiv(parameters, ranks)")
        DeviceBuffer shard();

        @ReduceScatter(send = "grads", recv = "shard", recvCountExpr = "floorDiv(parameters, ranks)", op = ReduceOp.SUM)
        void reduce();
    }

    private static CollectiveRemaindersTest_Sharded bind(RankContext rank, long parameters) {
        return CollectiveRemaindersTest_Sharded.binder(rank.comm(), rank.stream())
                .parameters(parameters)
                .bind();
    }

    /** Every rank failed with R13 and {@code expected} after its rank. */
    private static void assertOnEveryRank(AtomicReferenceArray<CollectivesException> failures, String expected) {
        for (int r = 0; r < RANKS; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R13_TYPES, e.rule(), e.getMessage());
            assertEquals("[R13 TYPES] rank " + r + ": " + expected + " (see docs/rules.md#r13-types)", e.getMessage());
        }
    }

    @Test
    void aRemainderFromTheDimsFailsBindOnEveryRank() {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(RANKS);
        Ranks.run(
                RANKS,
                rank -> failures.set(
                        rank.rank(),
                        assertThrows(
                                CollectivesException.class,
                                () -> bind(rank, PARAMETERS).close())));
        // the first expression bind meets with the division: the shard's count
        assertOnEveryRank(
                failures,
                "dev.collectives.examples.e2e.RemaindersTest.Sharded: @Buffer shard(): countExpr "
                        + "= \"parameters / ranks\": parameters / ranks divides 1000003 by 4, which leaves a remainder of 3; "
                        + "choose sizes that divide exactly (pad to a multiple), or write floorDiv(parameters, ranks) to round "
                        + "down");
    }

    @Test
    void aRemainderFromTheArgumentsFailsTheCallOnEveryRank() {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(RANKS);
        Ranks.run(RANKS, rank -> {
            try (var p = bind(rank, PARAMETERS + 1)) {
                failures.set(rank.rank(), assertThrows(CollectivesException.class, () -> p.gather(10)));
            }
        });
        assertOnEveryRank(
                failures,
                "dev.collectives.examples.e2e.RemaindersTest.Sharded: gather(): @AllGather"
                        + " #1: sendCountExpr = \"n / ranks\": n / ranks divides 10 by 4, which leaves a remainder "
                        + "of 2; choose sizes that divide exactly (pad to a multiple), or write floorDiv(n, ranks) to round "
                        + "down");
    }

    @Test
    void sizesThatDivideExactlyRun() {
        Ranks.run(RANKS, rank -> {
            try (var p = bind(rank, PARAMETERS + 1)) {
                p.grads().copyFromHost(Ranks.filled((int) PARAMETERS + 1, 1f));
                p.reduce();
                rank.stream().synchronize();
                assertFloats(Ranks.filled((int) (PARAMETERS + 1) / RANKS, RANKS), p.shard(), "shard");
            }
        });
    }

    @Test
    void floorDivRoundsDownOnPurpose() {
        Ranks.run(RANKS, rank -> {
            try (var p = CollectiveRemaindersTest_Floored.binder(rank.comm(), rank.stream())
                    .parameters(PARAMETERS)
                    .bind()) {
                assertEquals(250_000, p.shard().count());
                p.grads().copyFromHost(Ranks.filled((int) PARAMETERS, 1f));
                p.reduce();
                rank.stream().synchronize();
                assertFloats(Ranks.filled(250_000, RANKS), p.shard(), "shard");
            }
        });
    }
}
