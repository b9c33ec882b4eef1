package dev.collectives.examples.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.pipelines.CollectiveTensorParallelShards;
import dev.collectives.examples.pipelines.TensorParallelShards;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/** Generated pipelines on the children of a split: they bind as on any communicator, and R14 holds per child. */
class ChildCommunicatorsTest {
    private static final int SHARD = (int) TensorParallelShards.SHARD;

    @Test
    void aPipelineDeclaredForTwoRanksBindsOnTwoRankChildrenButNotOnTheirParent() {
        Ranks.run(4, rank -> {
            CollectivesException onParent = assertThrows(
                    CollectivesException.class, () -> CollectiveTensorParallelShards.bind(rank.comm(), rank.stream()));
            assertEquals(Rule.R14_SHAPE, onParent.rule(), onParent.getMessage());
            assertTrue(
                    onParent.getMessage().contains("declares ranks = 2, but the communicator has 4"),
                    onParent.getMessage());
            try (Communicator pair =
                            rank.comm().split(rank.rank() / 2, rank.rank()).orElseThrow();
                    var shards = CollectiveTensorParallelShards.bind(pair, rank.stream())) {
                shards.shard().copyFromHost(Ranks.ramp(rank.rank(), SHARD));
                shards.gather();
                rank.stream().synchronize();
                int first = rank.rank() / 2 * 2;
                float[] expected = new float[2 * SHARD];
                System.arraycopy(Ranks.ramp(first, SHARD), 0, expected, 0, SHARD);
                System.arraycopy(Ranks.ramp(first + 1, SHARD), 0, expected, SHARD, SHARD);
                assertArrayEquals(expected, Ranks.read(shards.full(), 2 * SHARD), "rank " + rank.rank());
            }
        });
    }

    @Test
    void differentPipelinesWithinOneChildFailThatChildsRanksOnlyNamingThem() {
        AtomicReferenceArray<CollectivesException> failures = new AtomicReferenceArray<>(4);
        Ranks.run(4, rank -> {
            try (Communicator pair =
                    rank.comm().split(rank.rank() / 2, rank.rank()).orElseThrow()) {
                boolean odd = rank.rank() == 1; // only the first pair disagrees
                try (AutoCloseable bound = odd
                        ? CollectiveOpPipelines_Graph.bind(pair, rank.stream())
                        : CollectiveOpPipelines_Local.bind(pair, rank.stream())) {
                    rank.stream().synchronize();
                } catch (CollectivesException e) {
                    failures.set(rank.rank(), e);
                }
            }
        });
        for (int r = 0; r < 2; r++) {
            CollectivesException e = failures.get(r);
            assertEquals(Rule.R14_SHAPE, e.rule(), String.valueOf(e));
            // the child's ranks, 0 and 1, as the child numbers them
            assertTrue(e.getMessage().contains("ranks bound different pipelines"), e.getMessage());
            assertTrue(
                    e.getMessage()
                            .contains("rank 0: dev.collectives.examples.e2e.OpPipelines.Local; rank 1: "
                                    + "dev.collectives.examples.e2e.OpPipelines.Graph"),
                    e.getMessage());
        }
        assertNull(failures.get(2));
        assertNull(failures.get(3));
    }
}
