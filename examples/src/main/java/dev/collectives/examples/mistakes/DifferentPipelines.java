package dev.collectives.examples.mistakes;

import dev.collectives.examples.pipelines.CollectiveSeedArena;
import dev.collectives.examples.pipelines.CollectiveSeedLocalRegistration;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RankContext;

/**
 * Rank 0 binds the guide's example 2 while the other ranks bind its example 3: NCCL or MCCL would hang in the first op.
 */
final class DifferentPipelines implements Mistake {
    @Override
    public String name() {
        return "different-pipelines";
    }

    @Override
    public String summary() {
        return "rank 0 binds SeedLocalRegistration, the other ranks bind SeedArena";
    }

    @Override
    public Rule rule() {
        return Rule.R14_SHAPE;
    }

    /** Bind is where the difference must be caught: a rank that got past it would have nothing left to do. */
    @Override
    public void run(RankContext rank) {
        Pipeline pipeline = rank.rank() == 0
                ? CollectiveSeedLocalRegistration.bind(rank.comm(), rank.stream())
                : CollectiveSeedArena.bind(rank.comm(), rank.stream());
        pipeline.close();
    }
}
