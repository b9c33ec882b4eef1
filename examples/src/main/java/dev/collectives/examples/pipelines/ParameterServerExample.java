package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.RankContext;

/**
 * Runs {@link ParameterServerShards}: the server's parameters are scattered, each rank doubles its shard, and the
 * server gathers the doubled shards. Every rank checks the shard it received; the server checks what it gathered.
 */
public final class ParameterServerExample implements Example {
    private static final int SHARD = (int) ParameterServerShards.SHARD;
    private static final int SERVER = ParameterServerShards.SERVER;
    /** The iteration {@link HostData#value} is called with. */
    private static final int START = 0;

    @Override
    public String name() {
        return "parameter-server";
    }

    @Override
    public String summary() {
        return "parameter server: the root scatters a shard to each rank and gathers the results, rank-major";
    }

    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.PLAIN;
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveParameterServerShards pipeline =
                CollectiveParameterServerShards.bind(rank.comm(), rank.stream())) {
            int all = SHARD * rank.size();
            float[] parameters = HostData.values(START, SERVER, 0, all);
            pipeline.parameters().copyFromHost(parameters);
            pipeline.results().copyFromHost(HostData.untouched(all));
            pipeline.distribute();
            rank.stream().synchronize();
            float[] shard = HostData.read(pipeline.shard());
            float[] expectedShard = HostData.values(START, SERVER, (long) rank.rank() * SHARD, SHARD);
            Check received = HostData.compare(rank.rank(), "shard", expectedShard, shard);
            for (int i = 0; i < shard.length; i++) {
                shard[i] *= 2;
            }
            pipeline.shard().copyFromHost(shard);
            pipeline.collect();
            rank.stream().synchronize();
            float[] doubled = new float[all];
            for (int i = 0; i < all; i++) {
                doubled[i] = 2 * parameters[i];
            }
            // only the server's results receive the gather; the other ranks' stay untouched
            float[] expectedResults = rank.rank() == SERVER ? doubled : HostData.untouched(all);
            Check gathered =
                    HostData.compare(rank.rank(), "results", expectedResults, HostData.read(pipeline.results()));
            return new RankReport(pipeline.describe(), Check.all(received, gathered));
        }
    }
}
