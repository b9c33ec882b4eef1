package dev.collectives.examples.mistakes;

import dev.collectives.examples.ClusterSpec;
import dev.collectives.examples.pipelines.CollectiveLegacyGeneralRegistration;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.RankContext;
import java.util.Optional;

/**
 * Binds the legacy-registration example where the variable that permits it is not set: the opt-in in the
 * declaration is not enough, since legacy buffers can hang or crash on abort.
 */
final class LegacyVariableMissing implements Mistake {
    @Override
    public String name() {
        return "legacy-variable-missing";
    }

    @Override
    public String summary() {
        return "LegacyGeneralRegistration bound without NCCL_LEGACY_CUDA_REGISTER=1/MCCL_LEGACY_MUSA_REGISTER=1";
    }

    @Override
    public Rule rule() {
        return Rule.R9_LEGACY;
    }

    /** One rank is enough: the variable is checked by each rank at bind. */
    @Override
    public int minRanks() {
        return 1;
    }

    @Override
    public ClusterSpec cluster() {
        return ClusterSpec.needing(ClusterSpec.Need.REGISTRATION);
    }

    @Override
    public Optional<String> inapplicable(Communicator comm) {
        String variable = comm.legacyRegisterVariable();
        if (comm.environment(variable).map("1"::equals).orElse(false)) {
            return Optional.of("has " + variable + "=1 in its environment; unset it to see this mistake");
        }
        return Mistake.super.inapplicable(comm);
    }

    @Override
    public void run(RankContext rank) {
        try (CollectiveLegacyGeneralRegistration pipeline =
                CollectiveLegacyGeneralRegistration.bind(rank.comm(), rank.stream())) {
            pipeline.gather();
            rank.stream().synchronize();
        }
    }
}
