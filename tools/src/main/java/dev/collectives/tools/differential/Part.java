package dev.collectives.tools.differential;

import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.ClusterSpec.Need;
import java.util.EnumSet;
import java.util.Locale;

/**
 * The four kinds of work the harness compares, each run by one of two jobs of processes: the examples and the corpus
 * with the legacy-registration variable set (an example and corpus pipelines register {@code cudaMalloc} memory),
 * the mistakes and framework memory without it (a mistake is its absence, and a user's environment lacks it).
 */
enum Part {
    EXAMPLES(Job.DATA),
    MISTAKES(Job.RULES),
    CORPUS(Job.DATA),
    WRAP(Job.RULES);

    private final Job job;

    Part(Job job) {
        this.job = job;
    }

    Job job() {
        return job;
    }

    /** "examples", "corpus": in the summary line and on the command line. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** A job of processes, one per rank, running the parts that need the same environment. */
    enum Job {
        /** Examples and corpus, with NCCL_LEGACY_CUDA_REGISTER=1/MCCL_LEGACY_MUSA_REGISTER=1. */
        DATA,
        /** Mistakes and framework memory, with neither variable. */
        RULES;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * What the job's sim processes are given, when sim is compared with itself: for the data job, everything
         * an example needs (one rank per node, both SHARPs, the legacy-registration variable), so that every example
         * runs; for the rules job, the defaults.
         */
        ClusterSpec simCluster() {
            return this == DATA
                    ? new ClusterSpec(1, EnumSet.of(Need.MTLINK_SHARP, Need.IB_SHARP, Need.LEGACY_REGISTER))
                    : ClusterSpec.PLAIN;
        }
    }
}
