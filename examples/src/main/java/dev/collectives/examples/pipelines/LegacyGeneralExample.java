package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.ClusterSpec.Need;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.RankContext;

/** Runs {@link LegacyGeneralRegistration} where the legacy-registration variable is set. */
public final class LegacyGeneralExample implements Example {
    private static final int SHARD = (int) LegacyGeneralRegistration.SHARD;
    private static final int ITERATIONS = 2;

    @Override
    public String name() {
        return "legacy-general";
    }

    @Override
    public String summary() {
        return "general registration of legacy cudaMalloc/musaMalloc buffers: the opt-in and"
                + " NCCL_LEGACY_CUDA_REGISTER=1/MCCL_LEGACY_MUSA_REGISTER=1";
    }

    @Override
    public int maxRanks() {
        return LegacyGeneralRegistration.MAX_RANKS;
    }

    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.needing(Need.REGISTRATION, Need.LEGACY_REGISTER);
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveLegacyGeneralRegistration pipeline =
                CollectiveLegacyGeneralRegistration.bind(rank.comm(), rank.stream())) {
            int checked = SHARD * (rank.size() + 1);
            Check check = Check.eachIteration(ITERATIONS, iteration -> {
                pipeline.shard().copyFromHost(HostData.values(iteration, rank.rank(), 0, SHARD));
                pipeline.gathered().copyFromHost(HostData.untouched(checked));
                pipeline.gather();
                rank.stream().synchronize();
                float[] expected = HostData.untouched(checked);
                for (int from = 0; from < rank.size(); from++) {
                    System.arraycopy(HostData.values(iteration, from, 0, SHARD), 0, expected, from * SHARD, SHARD);
                }
                return HostData.compare(rank.rank(), "gathered", expected, HostData.read(pipeline.gathered(), checked));
            });
            return new RankReport(pipeline.describe(), check);
        }
    }
}
