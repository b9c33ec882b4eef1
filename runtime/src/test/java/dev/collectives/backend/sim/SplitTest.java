package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertCollectivesException;
import static dev.collectives.backend.sim.PerRank.assertContains;
import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Result;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Child communicators on sim: split by color and key, NO_COLOR, close order, a missing rank, shrink. */
@Timeout(30)
class SplitTest {
    private static final DataType F32 = DataType.FLOAT32;

    @Test
    void childRanksFollowTheKeyThenTheParentRankAndCollectivesStayInTheChild() {
        int[][] childRank = new int[6][2];
        float[][] sums = new float[6][];
        try (SimCluster cluster = SimBackend.cluster().ranks(6).build()) {
            cluster.run(ctx -> {
                int r = ctx.rank();
                // even ranks: key -r reverses their order; odd ranks: one key, so the parent's order decides
                try (Communicator child =
                        ctx.comm().split(r % 2, r % 2 == 0 ? -r : 7).orElseThrow()) {
                    childRank[r] = new int[] {child.rank(), child.size()};
                    sums[r] = allReduceOfParentRanks(ctx, child);
                }
            });
        }
        int[][] expected = {{2, 3}, {0, 3}, {1, 3}, {1, 3}, {0, 3}, {2, 3}};
        for (int r = 0; r < 6; r++) {
            assertArrayEquals(expected[r], childRank[r], "rank " + r);
            // memory and the stream of the parent serve the child; the sum is over the child's ranks only
            assertArrayEquals(new float[] {r % 2 == 0 ? 0 + 2 + 4 : 1 + 3 + 5}, sums[r], "rank " + r);
        }
    }

    @Test
    void aRankWithNoColorTakesPartButGetsNoChild() {
        boolean[] hasChild = new boolean[4];
        int[] sizes = new int[4];
        try (SimCluster cluster = SimBackend.cluster().ranks(4).build()) {
            cluster.run(ctx -> {
                int r = ctx.rank();
                Optional<Communicator> child = ctx.comm().split(r == 1 ? Communicator.NO_COLOR : 5, 0);
                hasChild[r] = child.isPresent();
                if (child.isPresent()) {
                    try (Communicator c = child.get()) {
                        sizes[r] = c.size();
                    }
                }
            });
        }
        assertArrayEquals(new boolean[] {true, false, true, true}, hasChild);
        assertArrayEquals(new int[] {3, 0, 3, 3}, sizes);
    }

    @Test
    void aNegativeColorOtherThanNoColorIsRefused() {
        try (SimCluster cluster = SimBackend.cluster().ranks(1).build()) {
            CollectivesException e = assertThrows(
                    CollectivesException.class, () -> cluster.communicator(0).split(-2, 0));
            assertContains(e.getMessage(), "rank 0: ", "color -2 is negative", "Communicator.NO_COLOR");
        }
    }

    @Test
    void aRankThatNeverCallsSplitFailsTheOthersWithinTheTimeoutNamingIt() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(3).timeout(PerRank.SHORT).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                if (ctx.rank() != 2) {
                    ctx.comm().split(0, 0);
                }
            });
            for (int r : new int[] {0, 1}) {
                CollectivesException e = assertCollectivesException(f, r);
                assertEquals(Result.REMOTE_ERROR, e.result());
                assertContains(
                        e.getMessage(),
                        "rank " + r + ": ",
                        "split call #0",
                        "ranks [2] did not arrive within 300 ms",
                        "ranks [0, 1] did");
            }
            assertNull(f[2]);
        }
    }

    @Test
    void closingTheParentClosesItsOpenChildrenFirstAndClosingTwiceIsHarmless() {
        Communicator[] children = new Communicator[2];
        Communicator[] grandchildren = new Communicator[2];
        SimCluster cluster = SimBackend.cluster().ranks(2).build();
        cluster.run(ctx -> {
            children[ctx.rank()] = ctx.comm().split(0, 0).orElseThrow();
            grandchildren[ctx.rank()] = children[ctx.rank()].split(0, 0).orElseThrow();
        });
        cluster.close();
        cluster.close();
        for (Communicator c : new Communicator[] {children[0], grandchildren[1]}) {
            CollectivesException e = assertThrows(CollectivesException.class, c::createStream);
            assertContains(e.getMessage(), "on a closed communicator");
            c.close();
        }
    }

    @Test
    void aChildThatCannotCloseIsReportedAndItsParentClosesAnyway() {
        Communicator[] children = new Communicator[1];
        DeviceBuffer[] leaked = new DeviceBuffer[1];
        SimCluster cluster = SimBackend.cluster().ranks(1).build();
        cluster.run(ctx -> {
            children[0] = ctx.comm().split(0, 0).orElseThrow();
            leaked[0] = children[0].allocate(Allocator.MEM_ALLOC, F32, 4);
        });
        CollectivesException e = assertThrows(CollectivesException.class, cluster::close);
        assertContains(e.getMessage(), "communicator closed with live resources");
        assertThrows(CollectivesException.class, () -> cluster.communicator(0).createStream());
        leaked[0].close();
        assertTrue(cluster.usage().isZero());
    }

    @Test
    void survivorsShrinkAfterARankAbortedAndFinishAStep() {
        CountDownLatch aborted = new CountDownLatch(1);
        int[][] childRank = new int[4][];
        float[][] sums = new float[4][];
        try (SimCluster cluster = SimBackend.cluster().ranks(4).build()) {
            cluster.run(ctx -> {
                int r = ctx.rank();
                if (r == 2) {
                    ctx.comm().abort(); // this rank's failure, as far as the others can tell
                    aborted.countDown();
                    return;
                }
                aborted.await();
                CollectivesException failed =
                        assertThrows(CollectivesException.class, () -> allReduceOfParentRanks(ctx, ctx.comm()));
                assertContains(failed.getMessage(), "the communicator was aborted (rank 2 called abort())");
                try (Communicator survivors = ctx.comm().shrink(2)) {
                    childRank[r] = new int[] {survivors.rank(), survivors.size()};
                    sums[r] = allReduceOfParentRanks(ctx, survivors);
                }
            });
        }
        int[][] expected = {{0, 3}, {1, 3}, null, {2, 3}};
        for (int r : new int[] {0, 1, 3}) {
            assertArrayEquals(expected[r], childRank[r], "rank " + r);
            assertArrayEquals(new float[] {0 + 1 + 3}, sums[r], "rank " + r);
        }
    }

    @Test
    void survivorsDoNotWaitForTheExcludedRank() {
        CountDownLatch survivorsDone = new CountDownLatch(3);
        try (SimCluster cluster = SimBackend.cluster().ranks(4).build()) {
            cluster.run(ctx -> {
                if (ctx.rank() == 0) {
                    survivorsDone.await(); // calls nothing until the others have shrunk: they must not wait for it
                    return;
                }
                try (Communicator survivors = ctx.comm().shrink(0)) {
                    assertEquals(ctx.rank() - 1, survivors.rank());
                    assertArrayEquals(new float[] {1 + 2 + 3}, allReduceOfParentRanks(ctx, survivors));
                }
                survivorsDone.countDown();
            });
        }
    }

    @Test
    void shrinkRefusesRanksItCannotExclude() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            Communicator comm = cluster.communicator(1);
            assertContains(
                    assertThrows(CollectivesException.class, () -> comm.shrink(1))
                            .getMessage(),
                    "rank 1: ",
                    "excludes itself");
            assertContains(
                    assertThrows(CollectivesException.class, () -> comm.shrink(3))
                            .getMessage(),
                    "rank 3 is not a rank of this communicator of 3 ranks");
            assertContains(
                    assertThrows(CollectivesException.class, () -> comm.shrink(2, 2))
                            .getMessage(),
                    "rank 2 is excluded twice");
        }
    }

    @Test
    void aChildHasAsManyRanksPerNodeAsItsFullestNode() {
        int[][] ranksPerNode = new int[4][];
        try (SimCluster cluster = SimBackend.cluster().ranks(4).ranksPerNode(2).build()) {
            cluster.run(ctx -> {
                // color rank % 2 takes one rank of each node (R8 holds); color rank / 2 both ranks of one node
                try (Communicator acrossNodes =
                                ctx.comm().split(ctx.rank() % 2, 0).orElseThrow();
                        Communicator withinANode =
                                ctx.comm().split(ctx.rank() / 2, 0).orElseThrow()) {
                    ranksPerNode[ctx.rank()] = new int[] {
                        acrossNodes.topology().ranksPerNode(),
                        withinANode.topology().ranksPerNode()
                    };
                }
            });
        }
        for (int[] perNode : ranksPerNode) {
            assertArrayEquals(new int[] {1, 2}, perNode);
        }
    }

    /** An allreduce on {@code comm} of one element, the rank's rank in the parent, in memory of the parent. */
    private static float[] allReduceOfParentRanks(RankContext ctx, Communicator comm) {
        try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.MEM_ALLOC, F32, 1)) {
            buffer.copyFromHost(new float[] {ctx.rank()});
            comm.allReduce(buffer, buffer, 1, F32, ReduceOp.SUM, ctx.stream());
            ctx.stream().synchronize();
            float[] out = new float[1];
            buffer.copyToHost(out);
            return out;
        }
    }
}
