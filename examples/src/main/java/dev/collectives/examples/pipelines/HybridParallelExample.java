package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.RankContext;

/**
 * Hybrid parallelism on 8 ranks: 4 data-parallel replicas of a model split over 2 tensor-parallel ranks. Two
 * splits of the job's communicator make the groups: rank r is tensor-parallel rank {@code r % 2} of group
 * {@code r / 2}, and data-parallel rank {@code r / 2} of group {@code r % 2}. {@link TensorParallelShards} binds on
 * the tensor-parallel child and {@link DataParallelGradients} on the data-parallel one, over the former's output.
 */
public final class HybridParallelExample implements Example {
    private static final int RANKS = 8;
    private static final int TP = TensorParallelShards.RANKS;
    private static final int SHARD = (int) TensorParallelShards.SHARD;
    private static final int ITERATIONS = 2;

    @Override
    public String name() {
        return "hybrid-parallel";
    }

    @Override
    public String summary() {
        return "split into 4 data-parallel x 2 tensor-parallel groups: allgather and reducescatter on each"
                + " tensor-parallel child, a gradient allreduce on each data-parallel child";
    }

    @Override
    public int minRanks() {
        return RANKS;
    }

    @Override
    public int maxRanks() {
        return RANKS;
    }

    @Override
    public RankReport run(RankContext rank) {
        int r = rank.rank();
        try (Communicator tensorParallel = rank.comm().split(r / TP, r % TP).orElseThrow();
                Communicator dataParallel = rank.comm().split(r % TP, r / TP).orElseThrow();
                var shards = CollectiveTensorParallelShards.bind(tensorParallel, rank.stream());
                var gradients = CollectiveDataParallelGradients.bind(dataParallel, rank.stream(), shards.reduced())) {
            Check check = Check.eachIteration(ITERATIONS, i -> step(rank, i, shards, gradients));
            return new RankReport(shards.describe() + "\n" + gradients.describe(), check);
        }
    }

    /** One training step: gather the shards, scatter the partial sums, allreduce the gradients; each checked. */
    private static Check step(
            RankContext rank,
            int iteration,
            CollectiveTensorParallelShards shards,
            CollectiveDataParallelGradients gradients) {
        int r = rank.rank();
        int group = r / TP;
        shards.shard().copyFromHost(HostData.values(iteration, r, 0, SHARD));
        shards.gather();
        rank.stream().synchronize();
        float[] full = new float[SHARD * TP];
        for (int t = 0; t < TP; t++) {
            System.arraycopy(HostData.values(iteration, group * TP + t, 0, SHARD), 0, full, t * SHARD, SHARD);
        }
        Check gathered = HostData.compare(r, "full", full, HostData.read(shards.full()));
        shards.scatter();
        rank.stream().synchronize();
        // both ranks of the group hold the same full tensor: each gets twice its own shard
        Check scattered = HostData.compare(
                r, "reduced", timesTwo(HostData.values(iteration, r, 0, SHARD)), HostData.read(shards.reduced()));
        gradients.allReduce();
        rank.stream().synchronize();
        float[] summed = new float[SHARD];
        for (int g = 0; g < RANKS / TP; g++) {
            float[] replica = timesTwo(HostData.values(iteration, g * TP + r % TP, 0, SHARD));
            for (int j = 0; j < SHARD; j++) {
                summed[j] += replica[j];
            }
        }
        return Check.all(gathered, scattered, HostData.compare(r, "grads", summed, HostData.read(gradients.grads())));
    }

    private static float[] timesTwo(float[] values) {
        float[] doubled = values.clone();
        for (int j = 0; j < doubled.length; j++) {
            doubled[j] *= 2;
        }
        return doubled;
    }
}
