package dev.collectives.examples.pipelines;

import dev.collectives.examples.Example;
import dev.collectives.runtime.RankContext;

/** Runs {@link SeedGraphRegistration}: bind captures and instantiates the graph, each step launches it. */
public final class SeedGraphExample implements Example {
    @Override
    public String name() {
        return "seed-graph";
    }

    @Override
    public String summary() {
        return "the guide's example 1: graph registration, two allreduces at offsets captured into one graph";
    }

    @Override
    public RankReport run(RankContext rank) {
        try (CollectiveSeedGraphRegistration pipeline =
                CollectiveSeedGraphRegistration.bind(rank.comm(), rank.stream())) {
            return new RankReport(
                    pipeline.describe(),
                    SeedAllReduces.run(rank, pipeline.sendbuff(), pipeline.recvbuff(), pipeline::step));
        }
    }
}
