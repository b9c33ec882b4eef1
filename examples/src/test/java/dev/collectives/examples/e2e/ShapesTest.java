package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.backend.sim.SimCluster;
import dev.collectives.backend.sim.SimUsage;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.GraphCacheStats;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.Result;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sizes at bind ({@code @Dim}) and at call (step parameters) on sim at 1, 2, 3, 4 and 8 ranks: buffers sized by
 * dims, arguments that change on every call, arguments out of range refused on the calling rank before any work,
 * the graph cache of a GRAPH step (hits, misses, evictions, release), and ranks that disagree failing every rank.
 */
class ShapesTest {
    private static final long ELEMENTS = 1000;

    /** Rank r's grads: element i = 100 r + i + 1 (never 0, so a reduced element differs from an untouched one). */
    private static float[] ramp(int rank, int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = 100f * rank + i + 1;
        }
        return values;
    }

    /** {@code ramp(rank)} with elements [offset, offset + n) summed over the ranks. */
    private static float[] reduced(int rank, int ranks, int count, long offset, long n) {
        float[] values = ramp(rank, count);
        for (long i = offset; i < offset + n; i++) {
            float sum = 0;
            for (int r = 0; r < ranks; r++) {
                sum += 100f * r + i + 1;
            }
            values[(int) i] = sum;
        }
        return values;
    }

    private static SimCluster sim(int ranks) {
        LocalCluster cluster = Backends.get("sim").local(ranks);
        return assertInstanceOf(SimCluster.class, cluster);
    }

    private static CollectiveShapePipelines_Local bindLocal(RankContext rank, long elements) {
        return CollectiveShapePipelines_Local.binder(rank.comm(), rank.stream())
                .elements(elements)
                .bind();
    }

    private static CollectiveShapePipelines_Graph bindGraph(RankContext rank, long elements) {
        return CollectiveShapePipelines_Graph.binder(rank.comm(), rank.stream())
                .elements(elements)
                .bind();
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void dimsSizeTheBuffersAndTheOps(int ranks) {
        long elements = ELEMENTS + ranks;
        Ranks.run(ranks, rank -> {
            try (CollectiveShapePipelines_Local p = bindLocal(rank, elements)) {
                assertEquals(elements, p.elements());
                assertEquals(elements, p.grads().count());
                assertEquals(elements * ranks, p.gathered().count());
                int count = (int) elements;
                p.grads().copyFromHost(ramp(rank.rank(), count));
                p.gather();
                rank.stream().synchronize();
                float[] all = Ranks.read(p.gathered(), count * ranks);
                for (int r = 0; r < ranks; r++) {
                    float[] block = Arrays.copyOfRange(all, r * count, (r + 1) * count);
                    assertTrue(Arrays.equals(ramp(r, count), block), "block of rank " + r);
                }
                String describe = p.describe();
                assertTrue(describe.contains("elements") && describe.contains(String.valueOf(elements)), describe);
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void argumentsThatChangeOnEveryCall(int ranks) {
        Ranks.run(ranks, rank -> {
            Random random = new Random(ranks); // the same sequence on every rank
            int count = (int) ELEMENTS;
            try (CollectiveShapePipelines_Local p = bindLocal(rank, ELEMENTS)) {
                for (int call = 0; call < 25; call++) {
                    long offset = random.nextInt(count);
                    long n = 1 + random.nextInt(count - (int) offset);
                    p.grads().copyFromHost(ramp(rank.rank(), count));
                    p.bucket(offset, n);
                    rank.stream().synchronize();
                    assertFloats(
                            reduced(rank.rank(), ranks, count, offset, n),
                            p.grads(),
                            "bucket(" + offset + ", " + n + ")");
                }
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void argumentsOutOfRangeAreRefusedOnTheCallingRankBeforeAnyWork(int ranks) {
        Ranks.run(ranks, rank -> {
            int count = (int) ELEMENTS;
            try (CollectiveShapePipelines_Local p = bindLocal(rank, ELEMENTS)) {
                p.grads().copyFromHost(ramp(rank.rank(), count));
                // rank 0 alone: had it issued anything, the next collective would pair with it on the other ranks
                if (rank.rank() == 0) {
                    for (long[] outside : new long[][] {{ELEMENTS - 2, 4}, {ELEMENTS, 1}, {2, ELEMENTS}}) {
                        assertRefused(rank, Rule.R7_ARENA, () -> p.bucket(outside[0], outside[1]), outside);
                    }
                    // negative, empty, or overflowing a long on the way to the bound
                    for (long[] wrong : new long[][] {{-1, 4}, {0, -4}, {0, 0}, {Long.MAX_VALUE, 2}}) {
                        assertRefused(rank, Rule.R13_TYPES, () -> p.bucket(wrong[0], wrong[1]), wrong);
                    }
                    rank.stream().synchronize();
                    assertFloats(ramp(0, count), p.grads(), "grads after the refused calls");
                }
                p.bucket(ELEMENTS - 4, 4);
                rank.stream().synchronize();
                assertFloats(reduced(rank.rank(), ranks, count, ELEMENTS - 4, 4), p.grads(), "the next call");
            }
        });
    }

    /** {@code call} fails at once on this rank with {@code rule}, naming the step. */
    private static void assertRefused(RankContext rank, Rule rule, Runnable call, long[] arguments) {
        CollectivesException e = assertThrows(CollectivesException.class, call::run, () -> Arrays.toString(arguments));
        assertEquals(rule, e.rule(), e.getMessage());
        assertTrue(
                e.getMessage().startsWith(rule.tag() + " rank " + rank.rank() + ": ")
                        && e.getMessage().contains("bucket("),
                e.getMessage());
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void theGraphCacheHitsMissesEvictsAndReleases(int ranks) {
        int count = (int) ELEMENTS;
        CollectiveShapePipelines_Graph[] pipelines = new CollectiveShapePipelines_Graph[ranks];
        try (SimCluster cluster = sim(ranks)) {
            cluster.run(rank -> {
                CollectiveShapePipelines_Graph p = bindGraph(rank, ELEMENTS);
                pipelines[rank.rank()] = p;
                // (0, 4) was captured at bind; the cache holds 2, the least recently launched goes first
                long[][] calls = {{0, 4}, {4, 4}, {8, 12}, {4, 4}, {0, 4}, {0, 4}};
                for (long[] call : calls) {
                    p.send().copyFromHost(ramp(rank.rank(), count));
                    p.recv().copyFromHost(ramp(rank.rank(), count));
                    p.bucket(call[0], call[1]);
                    rank.stream().synchronize();
                    assertFloats(
                            reduced(rank.rank(), ranks, count, call[0], call[1]),
                            p.recv(),
                            "bucket(" + call[0] + ", " + call[1] + ")");
                }
                // captured: (0, 4) at bind, then (4, 4), (8, 12) evicting (0, 4), and (0, 4) again evicting (8, 12),
                // which the second (4, 4) had made the least recently used; hits: the first (0, 4), the second
                // (4, 4), the last (0, 4)
                assertEquals(new GraphCacheStats(4, 3, 2, 2, 2), p.bucketGraphs());
                assertTrue(
                        p.describe()
                                .contains("graph cache of bucket(): 2 of 2 graphs held, 4 captured, 3 hits, "
                                        + "2 evicted"),
                        p.describe());
                // a tuple out of range is refused before it is captured
                assertRefused(rank, Rule.R7_ARENA, () -> p.bucket(ELEMENTS, 4), new long[] {ELEMENTS, 4});
                assertEquals(new GraphCacheStats(4, 3, 2, 2, 2), p.bucketGraphs());
            });
            assertEquals(2 * ranks, cluster.usage().graphs(), "graphs held while the pipelines are open");
            cluster.run(rank -> pipelines[rank.rank()].close());
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
            cluster.run(rank -> {
                CollectivesException e =
                        assertThrows(CollectivesException.class, () -> pipelines[rank.rank()].bucket(0, 4));
                assertEquals(Rule.R5_GRAPH_LIFETIME, e.rule(), e.getMessage());
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 4})
    void aGraphCacheTooSmallSaysSoAndUnderFailRefusesToCaptureAgainOnEveryRank(int ranks) {
        try (SimCluster cluster = sim(ranks)) {
            cluster.run(rank -> {
                // WARN, the default: 3 tuples in turn through a cache of 2 that also holds (0, 4) from bind
                try (CollectiveShapePipelines_Graph p = bindGraph(rank, ELEMENTS)) {
                    for (int call = 0; call < 6; call++) {
                        p.bucket(8 + 8 * (call % 3), 4);
                    }
                    assertEquals(new GraphCacheStats(7, 0, 5, 2, 2), p.bucketGraphs());
                    assertTrue(
                            p.describe()
                                    .contains(
                                            "graph cache of bucket(): 2 of 2 graphs held, 7 captured, 0 hits,"
                                                    + " 5 evicted, 3 missed after eviction\n"
                                                    + ShapePipelines.class.getName() + ".Graph."
                                                    + "bucket(...): its graph cache is too small: it holds 2 graphs but the step was called "
                                                    + "with 4 distinct argument tuples, and 3 calls missed a graph it had evicted"),
                            p.describe());
                    assertTrue(p.describe().contains("set @CollectivePipeline(graphCache = 4)"), p.describe());
                }
                try (CollectiveShapePipelines_StrictGraph p =
                        CollectiveShapePipelines_StrictGraph.bind(rank.comm(), rank.stream())) {
                    for (long offset : new long[] {0, 4, 8, 0}) {
                        p.bucket(offset, 4);
                    }
                    // holds (8, 4) and (0, 4): (4, 4) would be the second capture of an evicted tuple
                    CollectivesException e = assertThrows(CollectivesException.class, () -> p.bucket(4, 4));
                    assertEquals(Result.INVALID_USAGE, e.result());
                    assertTrue(
                            e.getMessage()
                                    .startsWith("rank " + rank.rank() + ": " + ShapePipelines.class.getName()
                                            + ".StrictGraph.bucket(...): its graph cache is too small: it holds 2 graphs but the step "
                                            + "was called with 3 distinct argument tuples"),
                            e.getMessage());
                    assertTrue(
                            e.getMessage()
                                    .endsWith("set @CollectivePipeline(graphCache = 3), or call the step "
                                            + "with fewer distinct arguments (graphCacheOverflow = FAIL)"),
                            e.getMessage());
                    p.bucket(0, 4);
                    assertEquals(new GraphCacheStats(4, 1, 2, 2, 2), p.bucketGraphs());
                }
            });
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4, 8})
    void ranksCallingWithOtherArgumentsFailEveryRank(int ranks) {
        for (boolean graph : new boolean[] {false, true}) {
            try (SimCluster cluster = sim(ranks)) {
                Throwable[] failures = new Throwable[ranks];
                cluster.run(rank -> {
                    long n = rank.rank() == ranks - 1 ? 8 : 4;
                    try (AutoCloseable p = graph ? bindGraph(rank, ELEMENTS) : bindLocal(rank, ELEMENTS)) {
                        if (p instanceof CollectiveShapePipelines_Graph g) {
                            g.bucket(0, n);
                        } else {
                            ((CollectiveShapePipelines_Local) p).bucket(0, n);
                        }
                    } catch (CollectivesException e) {
                        failures[rank.rank()] = e;
                    }
                });
                for (int r = 0; r < ranks; r++) {
                    CollectivesException e = assertInstanceOf(
                            CollectivesException.class, failures[r], "rank " + r + (graph ? " (GRAPH)" : " (LOCAL)"));
                    assertEquals(Rule.R14_SHAPE, e.rule(), e.getMessage());
                    assertTrue(
                            e.getMessage().contains("bucket(0, 4)")
                                    && e.getMessage().contains("bucket(0, 8)"),
                            e.getMessage());
                }
                assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
            }
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4, 8})
    void aRankBindingAnotherDimFailsEveryRankNamingTheDim(int ranks) {
        try (SimCluster cluster = sim(ranks)) {
            Throwable[] failures = new Throwable[ranks];
            cluster.run(rank -> {
                long elements = rank.rank() == 0 ? ELEMENTS : 2 * ELEMENTS;
                try (CollectiveShapePipelines_Local p = bindLocal(rank, elements)) {
                    assertNull(p, "bind must fail");
                } catch (CollectivesException e) {
                    failures[rank.rank()] = e;
                }
            });
            for (int r = 0; r < ranks; r++) {
                CollectivesException e = assertInstanceOf(CollectivesException.class, failures[r], "rank " + r);
                assertEquals(Rule.R14_SHAPE, e.rule(), e.getMessage());
                assertTrue(
                        e.getMessage().contains("elements")
                                && e.getMessage().contains(String.valueOf(ELEMENTS))
                                && e.getMessage().contains(String.valueOf(2 * ELEMENTS)),
                        e.getMessage());
            }
        }
    }
}
