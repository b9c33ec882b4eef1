package dev.collectives.examples;

import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.RankContext;
import java.util.Optional;

/**
 * One runnable example: a pipeline, the data it is filled with, and the check of its results against values
 * computed on the host. The runner calls {@link #run} on every rank of a cluster made to {@link #cluster()}.
 */
public interface Example {
    /** The name {@code --example} selects, e.g. "seed-graph". */
    String name();

    /** One line: what it shows. */
    String summary();

    /** Fewer ranks than this and the example is skipped, not failed (a ring needs a neighbour). */
    default int minRanks() {
        return 1;
    }

    /**
     * More ranks than this and the example is skipped: its buffers are sized for at most this many, or its sums
     * would no longer be exact.
     */
    default int maxRanks() {
        return HostData.EXACT_RANKS;
    }

    /** What the ranks must offer: topology, capabilities, environment. */
    default ClusterSpec cluster() {
        return ClusterSpec.needing(ClusterSpec.Need.REGISTRATION);
    }

    /**
     * Why the example cannot run on {@code comm} (a capability it lacks, a binding missing here), said after
     * "SKIPPED: &lt;backend&gt;"; empty when it can.
     */
    default Optional<String> inapplicable(Communicator comm) {
        return cluster().unmetBy(comm);
    }

    /** Binds the pipeline on this rank, fills it, steps it, reads back and verifies; closes what it bound. */
    RankReport run(RankContext rank) throws Exception;

    /**
     * What one rank saw.
     *
     * @param describe  the pipeline's {@code describe()} table
     * @param check     its verdict
     * @param checkedOn where the check ran, where that is not the rank's place in the job it started with: after a
     *                  shrink or a growth, "rank 1 of 2" of the new communicator
     */
    record RankReport(String describe, Check check, Optional<String> checkedOn) {
        /** What a rank saw that was checked where it started. */
        public RankReport(String describe, Check check) {
            this(describe, check, Optional.empty());
        }

        /** What a rank saw that was checked as rank {@code rank} of {@code size} ranks of another communicator. */
        public RankReport(String describe, Check check, int rank, int size) {
            this(describe, check, Optional.of("rank " + rank + " of " + size));
        }
    }
}
