package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.GraphCacheStats;
import dev.collectives.runtime.RankContext;

/**
 * Runs {@link GradientBucketsLocal}, then {@link GradientBucketsGraph}, on the gradients of {@link ToyModel#EXAMPLE}:
 * bind sizes the arena from the model, then each of {@value #TRAINING_STEPS} training steps fills the gradients
 * with this rank's values and allreduces them bucket by bucket in backward order. Every element must then hold
 * the sum over the ranks: a bucket reduced twice, or an element that no bucket covers, shows as a wrong element.
 */
public final class GradientBucketsExample implements Example {
    private static final int TRAINING_STEPS = 3;

    /** A step with parameters, as both pipelines have it. */
    @FunctionalInterface
    private interface Bucket {
        void allReduce(long offset, long n);
    }

    @Override
    public String name() {
        return "gradient-buckets";
    }

    @Override
    public String summary() {
        return "a model's gradient arena sized at bind, allreduced bucket by bucket with step parameters (offset, n),"
                + " LOCAL and GRAPH (buckets captured at bind and on first use)";
    }

    @Override
    public RankReport run(RankContext rank) {
        ToyModel model = ToyModel.EXAMPLE;
        String describe;
        Check local;
        try (CollectiveGradientBucketsLocal pipeline = CollectiveGradientBucketsLocal.binder(rank.comm(), rank.stream())
                .parameters(model.parameterCount())
                .bind()) {
            local = train(rank, model, pipeline.grads(), pipeline::bucket);
            describe = pipeline.describe();
        }
        try (CollectiveGradientBucketsGraph pipeline = CollectiveGradientBucketsGraph.binder(rank.comm(), rank.stream())
                .parameters(model.parameterCount())
                .bind()) {
            Check graph = Check.all(
                    train(rank, model, pipeline.grads(), pipeline::bucket),
                    cache(rank, model, pipeline.bucketGraphs()));
            return new RankReport(
                    describe + pipeline.describe(), Check.all(local.labelled("LOCAL"), graph.labelled("GRAPH")));
        }
    }

    /**
     * Every bucket was captured once, the full ones at bind and the last on the first training step, and every
     * later call was a hit: nothing was evicted.
     */
    private static Check cache(RankContext rank, ToyModel model, GraphCacheStats stats) {
        int buckets = model.bucketsInBackwardOrder().size();
        int capturedOnFirstStep = buckets - ToyModel.FULL_BUCKETS;
        GraphCacheStats expected = new GraphCacheStats(
                buckets, (long) TRAINING_STEPS * buckets - capturedOnFirstStep, 0, buckets, stats.capacity());
        return expected.equals(stats)
                ? Check.ok("graph cache " + stats)
                : Check.wrong(rank.rank(), "graph cache of bucket()", expected, stats);
    }

    private static Check train(RankContext rank, ToyModel model, DeviceBuffer grads, Bucket bucket) {
        int parameters = Math.toIntExact(model.parameterCount());
        return Check.each("training step", TRAINING_STEPS, step -> {
            grads.copyFromHost(HostData.values(step, rank.rank(), 0, parameters));
            for (long[] b : model.bucketsInBackwardOrder()) {
                bucket.allReduce(b[0], b[1]);
            }
            rank.stream().synchronize();
            float[] sum = new float[parameters];
            for (int j = 0; j < parameters; j++) {
                sum[j] = HostData.sum(step, rank.size(), j);
            }
            return HostData.compare(rank.rank(), "grads", sum, HostData.read(grads));
        });
    }
}
