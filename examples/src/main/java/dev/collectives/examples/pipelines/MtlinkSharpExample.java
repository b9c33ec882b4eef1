package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.ClusterSpec.Need;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.RankContext;

/** Runs {@link MtlinkSharpAllReduce} on a fabric with MTLink SHARP. */
public final class MtlinkSharpExample implements Example {
    private static final int COUNT = (int) MtlinkSharpAllReduce.COUNT;
    private static final int ITERATIONS = 2;

    @Override
    public String name() {
        return "mtlink-sharp";
    }

    @Override
    public String summary() {
        return "MTLink SHARP registration: an in-place allreduce on ncclMemAlloc/mcclMemAlloc memory, through a graph";
    }

    /** The switch reduces what several GPUs of a node contribute: one GPU alone does not use it. */
    @Override
    public int minRanks() {
        return 2;
    }

    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.needing(Need.REGISTRATION, Need.MTLINK_SHARP);
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveMtlinkSharpAllReduce pipeline =
                CollectiveMtlinkSharpAllReduce.bind(rank.comm(), rank.stream())) {
            Check check = Check.eachIteration(ITERATIONS, iteration -> {
                // one element past the op's range must stay as it was
                float[] sent = HostData.values(iteration, rank.rank(), 0, COUNT + 1);
                pipeline.data().copyFromHost(sent);
                pipeline.step();
                rank.stream().synchronize();
                float[] expected = sent.clone();
                for (int j = 0; j < COUNT; j++) {
                    expected[j] = HostData.sum(iteration, rank.size(), j);
                }
                return HostData.compare(rank.rank(), "data", expected, HostData.read(pipeline.data(), COUNT + 1));
            });
            return new RankReport(pipeline.describe(), check);
        }
    }
}
