package dev.collectives.examples.pipelines;

import dev.collectives.annotation.DataType;
import dev.collectives.examples.Check;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;

/**
 * Runs {@link SeedArena}. Besides the result in recvbuff it checks that sendbuff is unchanged and that the block
 * right after recvbuff is untouched: a view that spilled over its bounds would show there.
 */
public final class SeedArenaExample implements Example {
    private static final int COUNT = (int) SeedArena.COUNT;
    private static final int ITERATIONS = 2;

    @Override
    public String name() {
        return "seed-arena";
    }

    @Override
    public String summary() {
        return "the guide's example 3: one block registered once, sendbuff and recvbuff carved from it as views";
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveSeedArena pipeline = CollectiveSeedArena.bind(rank.comm(), rank.stream())) {
            DeviceBuffer afterRecv = pipeline.buffer()
                    .view(
                            SeedArena.RECV_OFFSET_BYTES + SeedArena.COUNT * DataType.FLOAT32.size(),
                            DataType.FLOAT32,
                            COUNT);
            Check check = Check.eachIteration(ITERATIONS, iteration -> {
                float[] sent = HostData.values(iteration, rank.rank(), 0, COUNT);
                pipeline.sendbuff().copyFromHost(sent);
                pipeline.recvbuff().copyFromHost(HostData.untouched(COUNT));
                afterRecv.copyFromHost(HostData.untouched(COUNT));
                pipeline.step();
                rank.stream().synchronize();
                float[] sum = new float[COUNT];
                for (int j = 0; j < COUNT; j++) {
                    sum[j] = HostData.sum(iteration, rank.size(), j);
                }
                return Check.all(
                        HostData.compare(rank.rank(), "recvbuff", sum, HostData.read(pipeline.recvbuff())),
                        HostData.compare(rank.rank(), "sendbuff", sent, HostData.read(pipeline.sendbuff())),
                        HostData.compare(
                                rank.rank(),
                                "the block after recvbuff",
                                HostData.untouched(COUNT),
                                HostData.read(afterRecv)));
            });
            return new RankReport(pipeline.describe(), check);
        }
    }
}
