package dev.collectives.examples.mistakes;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;

/**
 * Every rank passes {@link ExternalAllReduce} a slice of its own block, but rank 0's starts at the block's head
 * and the others' 64 elements in: graph registration needs the same head offset on every rank.
 */
final class ExternalOffsets implements Mistake {
    /** Where the other ranks' slice starts, in elements. */
    static final long SHIFT = 64;

    @Override
    public String name() {
        return "external-offsets";
    }

    @Override
    public String summary() {
        return "rank 0 passes an @External buffer at its block's head, the others " + SHIFT + " elements in";
    }

    @Override
    public Rule rule() {
        return Rule.R2_OFFSET;
    }

    @Override
    public void run(RankContext rank) {
        try (DeviceBuffer block =
                rank.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ExternalAllReduce.COUNT + SHIFT)) {
            DeviceBuffer input = block.slice(rank.rank() == 0 ? 0 : SHIFT, ExternalAllReduce.COUNT);
            try (CollectiveExternalAllReduce pipeline =
                    CollectiveExternalAllReduce.bind(rank.comm(), rank.stream(), input)) {
                pipeline.step();
                rank.stream().synchronize();
            }
        }
    }
}
