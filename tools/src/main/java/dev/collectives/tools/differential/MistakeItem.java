package dev.collectives.tools.differential;

import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.Clusters;
import dev.collectives.examples.Runner;
import dev.collectives.examples.mistakes.Mistake;
import dev.collectives.runtime.RankContext;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A mistake as an item: the tag it fails with on each rank is what is compared (running through is "ran"). */
record MistakeItem(Mistake mistake) implements Item {
    @Override
    public String name() {
        return mistake.name();
    }

    @Override
    public Part part() {
        return Part.MISTAKES;
    }

    @Override
    public ClusterSpec cluster() {
        return mistake.cluster();
    }

    @Override
    public Duration timeout() {
        return Clusters.MISTAKE_TIMEOUT;
    }

    @Override
    public Optional<String> outOfRange(int ranks) {
        return Runner.rankRange(ranks, mistake.minRanks(), Integer.MAX_VALUE);
    }

    @Override
    public Outcome run(RankContext rank) throws Exception {
        Optional<String> why = mistake.inapplicable(rank.comm());
        if (why.isPresent()) {
            return Outcome.skipped(why.get());
        }
        mistake.run(rank);
        return Outcome.ran(List.of());
    }
}
