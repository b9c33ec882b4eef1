package dev.collectives.examples.mistakes;

import dev.collectives.examples.ClusterSpec;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.RankContext;
import java.util.Optional;

/**
 * A pipeline bound wrongly on purpose, to show what the project catches at run time. Real NCCL or MCCL would hang or
 * corrupt data; here {@link #run} must fail fast on every rank with {@link #rule()}'s tag.
 */
public interface Mistake {
    /** The name {@code --example} selects with {@code --mistakes}. */
    String name();

    /** One line: what goes wrong. */
    String summary();

    /** The rule the failure must name. */
    Rule rule();

    /** A mistake across ranks needs at least two of them. */
    default int minRanks() {
        return 2;
    }

    default ClusterSpec cluster() {
        return ClusterSpec.needing(ClusterSpec.Need.REGISTRATION);
    }

    /** Why the mistake cannot be shown on {@code comm} (a capability it lacks); empty when it can. */
    default Optional<String> inapplicable(Communicator comm) {
        return cluster().unmetBy(comm);
    }

    /** Makes the mistake on one rank; expected to throw. */
    void run(RankContext rank) throws Exception;
}
