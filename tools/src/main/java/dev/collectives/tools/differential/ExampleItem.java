package dev.collectives.tools.differential;

import dev.collectives.examples.Check;
import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.Clusters;
import dev.collectives.examples.Example;
import dev.collectives.examples.Runner;
import dev.collectives.runtime.RankContext;
import java.time.Duration;
import java.util.Optional;

/**
 * An example as an item: what it read back and found right (its own check) is its output. Its values are small
 * integers whose sums are exact in float32 in any order, so it is compared bit-exactly at every size.
 */
record ExampleItem(Example example) implements Item {
    @Override
    public String name() {
        return example.name();
    }

    @Override
    public Part part() {
        return Part.EXAMPLES;
    }

    @Override
    public ClusterSpec cluster() {
        return example.cluster();
    }

    @Override
    public Duration timeout() {
        return Clusters.EXAMPLE_TIMEOUT;
    }

    @Override
    public Optional<String> outOfRange(int ranks) {
        return Runner.rankRange(ranks, example.minRanks(), example.maxRanks());
    }

    @Override
    public Outcome run(RankContext rank) throws Exception {
        Optional<String> missing = example.cluster().unmetBy(rank.comm());
        if (missing.isPresent()) {
            return Outcome.skipped(missing.get());
        }
        Check check = example.run(rank).check();
        return check.isOk()
                ? Outcome.ran(check.readBacks().stream()
                        .map(r -> Output.ofFloats(r.buffer(), r.values()))
                        .toList())
                : Outcome.wrong(check.text());
    }
}
