package dev.collectives.examples;

import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.Communicator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What an example needs of the ranks it runs on. The {@code sim} backend is configured to provide it
 * ({@link Clusters}); on a real library it is what the hardware and the environment offer, so the runner checks it
 * on each rank's communicator and skips the example, saying what is missing, where it does not hold.
 *
 * @param ranksPerNode the topology to simulate: 1 for IB SHARP (R8), 0 for all ranks on one node
 * @param needs        capabilities and settings the example needs
 */
public record ClusterSpec(int ranksPerNode, Set<Need> needs) {
    /** All ranks on one node, nothing special: what a plain {@code backend.local(n)} gives. */
    public static final ClusterSpec PLAIN = new ClusterSpec(0, EnumSet.noneOf(Need.class));

    public ClusterSpec {
        needs = Collections.unmodifiableSet(needs.isEmpty() ? EnumSet.noneOf(Need.class) : EnumSet.copyOf(needs));
    }

    /** What the runner checks, and what the sim cluster is configured with. */
    public enum Need {
        /** User buffer registration (any NCCL this project loads; MCCL 2.28.9 or later). */
        REGISTRATION,
        /** MTLink SHARP (NVLS) on the fabric (R3). */
        MTLINK_SHARP,
        /** IB SHARP (CollNet) enabled on the communicator (R8). */
        IB_SHARP,
        /** Window registration yields symmetric windows (R12). */
        SYMMETRIC_WINDOWS,
        /** ncclWinGetUserPtr/mcclWinGetUserPtr and ncclGetLsaDevicePointer/mcclGetLsaDevicePointer (R10). */
        WINDOW_HELPERS,
        /** NCCL_LEGACY_CUDA_REGISTER=1/MCCL_LEGACY_MUSA_REGISTER=1 in the environment (R9). */
        LEGACY_REGISTER
    }

    /** All ranks on one node with these needs. */
    public static ClusterSpec needing(Need... needs) {
        return new ClusterSpec(0, needs.length == 0 ? EnumSet.noneOf(Need.class) : EnumSet.of(needs[0], needs));
    }

    /** The same needs with {@code ranksPerNode} ranks on each node. */
    public ClusterSpec withRanksPerNode(int perNode) {
        return new ClusterSpec(perNode, needs);
    }

    public boolean needs(Need need) {
        return needs.contains(need);
    }

    /** What {@code comm} lacks of this spec, in words; empty when it has everything. */
    public Optional<String> unmetBy(Communicator comm) {
        Capabilities caps = comm.capabilities();
        List<String> missing = new ArrayList<>();
        if (ranksPerNode > 0 && comm.topology().ranksPerNode() != ranksPerNode) {
            missing.add(ranksPerNode + " rank(s) per node (this communicator has " + comm.topology() + ")");
        }
        requireCapability(
                missing,
                Need.REGISTRATION,
                caps.registration(),
                "user buffer registration (library " + caps.libraryVersion() + "; MCCL needs 2.28.9 or later)");
        requireCapability(missing, Need.MTLINK_SHARP, caps.mtlinkSharp(), "MTLink SHARP (NVLS) on the fabric");
        requireCapability(missing, Need.IB_SHARP, caps.ibSharp(), "IB SHARP (CollNet) enabled on the communicator");
        requireCapability(missing, Need.SYMMETRIC_WINDOWS, caps.symmetricWindows(), "symmetric windows");
        requireCapability(
                missing,
                Need.WINDOW_HELPERS,
                caps.windowHelpers(),
                "the window helpers WinGetUserPtr and GetLsaDevicePointer");
        String variable = comm.legacyRegisterVariable();
        requireCapability(
                missing,
                Need.LEGACY_REGISTER,
                comm.environment(variable).map("1"::equals).orElse(false),
                variable + "=1 in the environment");
        return missing.isEmpty() ? Optional.empty() : Optional.of("needs " + String.join(", ", missing));
    }

    private void requireCapability(List<String> missing, Need need, boolean present, String description) {
        if (needs(need) && !present) {
            missing.add(description);
        }
    }
}
