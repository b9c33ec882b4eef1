package dev.collectives.examples.pipelines;

import dev.collectives.annotation.HandleType;
import dev.collectives.examples.Check;
import dev.collectives.examples.Example;
import dev.collectives.examples.HostData;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.RankContext;

/**
 * Runs {@link CustomAllocatorReduceScatter}, and checks that its memory really came from
 * {@link HeadroomVmmAllocator}: POSIX file descriptor handles and twice as much address range as memory.
 */
public final class CustomAllocatorExample implements Example {
    private static final int BLOCK = (int) CustomAllocatorReduceScatter.BLOCK;
    private static final int ITERATIONS = 2;

    @Override
    public String name() {
        return "custom-allocator";
    }

    @Override
    public String summary() {
        return "a qualified custom VMM allocator (@QualifiedAllocator) serving a registered reducescatter";
    }

    @Override
    public int maxRanks() {
        return CustomAllocatorReduceScatter.MAX_RANKS;
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveCustomAllocatorReduceScatter pipeline =
                CollectiveCustomAllocatorReduceScatter.bind(rank.comm(), rank.stream())) {
            Check data = Check.eachIteration(ITERATIONS, iteration -> {
                pipeline.contributions().copyFromHost(HostData.values(iteration, rank.rank(), 0, BLOCK * rank.size()));
                pipeline.reduced().copyFromHost(HostData.untouched(BLOCK));
                pipeline.step();
                rank.stream().synchronize();
                float[] expected = new float[BLOCK];
                for (int j = 0; j < BLOCK; j++) {
                    expected[j] = HostData.sum(iteration, rank.size(), (long) rank.rank() * BLOCK + j);
                }
                return HostData.compare(rank.rank(), "reduced", expected, HostData.read(pipeline.reduced()));
            });
            return new RankReport(
                    pipeline.describe(),
                    Check.all(
                            data,
                            madeByTheAllocator(
                                    rank.rank(),
                                    "contributions",
                                    pipeline.contributions().memory()),
                            madeByTheAllocator(
                                    rank.rank(), "reduced", pipeline.reduced().memory())));
        }
    }

    private static Check madeByTheAllocator(int rank, String buffer, DeviceMemory memory) {
        if (!memory.handleTypes().contains(HandleType.POSIX_FILE_DESCRIPTOR)) {
            return Check.wrong(
                    rank, buffer + "'s handle types", "POSIX_FILE_DESCRIPTOR among them", memory.handleTypes());
        }
        long reserved = memory.physicalSize() * HeadroomVmmAllocator.HEADROOM;
        if (memory.reservedSize() != reserved) {
            return Check.wrong(rank, buffer + "'s reserved bytes", reserved, memory.reservedSize());
        }
        return Check.ok(buffer + " memory from HeadroomVmmAllocator");
    }
}
