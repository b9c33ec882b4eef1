package dev.collectives.examples.pipelines;

import dev.collectives.examples.Check;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.ClusterSpec.Need;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.RankContext;

/** Runs {@link IbSharpPipeline} on one rank per node, with IB SHARP enabled on the communicator. */
public final class IbSharpExample implements Example {
    private static final int ITERATIONS = 2;

    @Override
    public String name() {
        return "ib-sharp";
    }

    @Override
    public String summary() {
        return "IB SHARP registration: allreduce, reducescatter and allgather, one rank per node";
    }

    /** IB SHARP reduces across nodes: one node alone has nothing to reduce with. */
    @Override
    public int minRanks() {
        return 2;
    }

    @Override
    public int maxRanks() {
        return IbSharpPipeline.MAX_RANKS;
    }

    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.needing(Need.REGISTRATION, Need.IB_SHARP).withRanksPerNode(1);
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveIbSharpPipeline pipeline = CollectiveIbSharpPipeline.bind(rank.comm(), rank.stream())) {
            int checked = (int) (IbSharpPipeline.GATHER_RECV_OFFSET + IbSharpPipeline.BLOCK * (rank.size() + 1));
            int sent = (int) Math.max(IbSharpPipeline.REDUCED, IbSharpPipeline.BLOCK * rank.size());
            Check check = Check.eachIteration(ITERATIONS, iteration -> {
                pipeline.sendbuff().copyFromHost(HostData.values(iteration, rank.rank(), 0, sent));
                pipeline.recvbuff().copyFromHost(HostData.untouched(checked));
                pipeline.step();
                rank.stream().synchronize();
                return HostData.compare(
                        rank.rank(),
                        "recvbuff",
                        expected(iteration, rank, checked),
                        HostData.read(pipeline.recvbuff(), checked));
            });
            return new RankReport(pipeline.describe(), check);
        }
    }

    /** recvbuff[0, checked): the three results and, between and after them, untouched elements. */
    private static float[] expected(int iteration, RankContext rank, int checked) {
        float[] expected = HostData.untouched(checked);
        for (int j = 0; j < IbSharpPipeline.REDUCED; j++) {
            expected[j] = HostData.sum(iteration, rank.size(), j);
        }
        int block = (int) IbSharpPipeline.BLOCK;
        for (int j = 0; j < block; j++) {
            expected[(int) IbSharpPipeline.SCATTER_RECV_OFFSET + j] =
                    HostData.sum(iteration, rank.size(), (long) rank.rank() * block + j);
            for (int from = 0; from < rank.size(); from++) {
                expected[(int) IbSharpPipeline.GATHER_RECV_OFFSET + from * block + j] =
                        HostData.value(iteration, from, j);
            }
        }
        return expected;
    }
}
