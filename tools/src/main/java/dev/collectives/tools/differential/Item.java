package dev.collectives.tools.differential;

import dev.collectives.examples.ClusterSpec;
import dev.collectives.runtime.RankContext;
import java.time.Duration;
import java.util.Optional;

/** One unit of work the harness runs on sim and on the other backend, on every rank, and compares. */
interface Item {
    /** Unique within its part: "seed-graph", "p0017", "vmm-posix-fd/unequal/GRAPH". */
    String name();

    Part part();

    /** "corpus p0017": how reports name it. */
    default String key() {
        return part().label() + " " + name();
    }

    /** What the sim cluster of the reference run is configured with. */
    default ClusterSpec cluster() {
        return ClusterSpec.PLAIN;
    }

    /** How long a simulated rank of the reference run waits for the others. */
    Duration timeout();

    /** Why the item does not run at {@code ranks} ranks, on either side; empty when it does. */
    default Optional<String> outOfRange(int ranks) {
        return Optional.empty();
    }

    /** Runs the item on one rank; what it throws is the rank's failure. */
    Outcome run(RankContext rank) throws Exception;

    /** How far the other backend's floating-point elements may lie from sim's at {@code ranks} ranks. */
    default Tolerance tolerance(int ranks) {
        return Tolerance.EXACT;
    }

    /** What a difference's report shows to reproduce it: the declaration and the calls; empty if nothing more. */
    default String reproducer() {
        return "";
    }
}
