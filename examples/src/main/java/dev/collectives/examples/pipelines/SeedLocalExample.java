package dev.collectives.examples.pipelines;

import dev.collectives.examples.Example;
import dev.collectives.runtime.RankContext;

/** Runs {@link SeedLocalRegistration}: bind registers each buffer once, each step reuses the registrations. */
public final class SeedLocalExample implements Example {
    @Override
    public String name() {
        return "seed-local";
    }

    @Override
    public String summary() {
        return "the guide's example 2: local registration, the same two allreduces on buffers registered once";
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveSeedLocalRegistration pipeline =
                CollectiveSeedLocalRegistration.bind(rank.comm(), rank.stream())) {
            return new RankReport(
                    pipeline.describe(),
                    SeedAllReduces.run(rank, pipeline.sendbuff(), pipeline.recvbuff(), pipeline::step));
        }
    }
}
