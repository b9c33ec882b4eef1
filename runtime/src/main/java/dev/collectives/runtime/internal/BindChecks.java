package dev.collectives.runtime.internal;

import dev.collectives.annotation.DataType;
import dev.collectives.rules.PeerPairing;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;

import java.util.List;

/**
 * What bind checks of what it was given (dims, externals) and of the communicator (its size, its topology), before
 * the ranks agree: each names the rank and the pipeline.
 */
public final class BindChecks {
    private BindChecks() {
    }

    /** A value the binder must have been given: a dim or an external, named by its setter. */
    public static <T> T given(Communicator comm, String pipeline, T value, String setter) {
        if (value == null) {
            throw CollectivesException.usage(comm.rank(), pipeline + ": bind() needs " + setter + "(...), which the "
                    + "binder was not given; set every dim and external first");
        }
        return value;
    }

    /** A dim is a size: at least 1, as every expression using it assumes (R13). */
    public static void requireDim(Communicator comm, String pipeline, String dim, long value) {
        if (value < 1) {
            throw CollectivesException.violation(Rule.R13_TYPES, comm.rank(), pipeline + ": dim `" + dim + "` is "
                    + value + "; dims are sizes, at least 1");
        }
    }

    /** An external buffer must have its declared element type and at least its declared count (R13). */
    public static void requireExternal(Communicator comm, String pipeline, DeviceBuffer buffer, String name,
                                       DataType type, long count) {
        if (buffer.type() != type || buffer.count() < count) {
            throw CollectivesException.violation(Rule.R13_TYPES, comm.rank(), pipeline + ": external buffer `"
                    + name + "` must hold at least " + count + " x " + type + "; bind was given " + buffer);
        }
    }

    /** A pipeline that declares its world size binds only on a communicator of that size (R14). */
    public static void requireRanks(Communicator comm, String pipeline, int ranks) {
        if (comm.size() != ranks) {
            throw CollectivesException.violation(Rule.R14_SHAPE, comm.rank(), pipeline + " declares ranks = "
                    + ranks + ", but the communicator has " + comm.size());
        }
    }

    /**
     * A root or an absolute peer must be a rank of the communicator, which only bind knows when ranks = 0: the
     * processor's [DSL step] check, made with the communicator's size.
     */
    public static void requireRank(Communicator comm, String pipeline, int rank, String what) {
        if (rank < 0 || rank >= comm.size()) {
            throw CollectivesException.declaration(PeerPairing.TAG, PeerPairing.ANCHOR, comm.rank(), pipeline
                    + ": the " + what + " is rank " + rank + ", but the communicator has " + comm.size() + " ranks");
        }
    }

    /**
     * The point-to-point ops of {@code step} pair up across the communicator's ranks ({@link PeerPairing}), checked
     * at bind where the pipeline does not declare {@code ranks}; every rank reaches the same verdict, so every rank
     * throws the same message.
     */
    public static void requirePaired(Communicator comm, String pipeline, String step, PeerPairing.Op... ops) {
        List<PeerPairing.Unpaired> unpaired = PeerPairing.unpaired(List.of(ops), comm.size());
        if (!unpaired.isEmpty()) {
            PeerPairing.Unpaired first = unpaired.get(0);
            throw CollectivesException.declaration(PeerPairing.TAG, PeerPairing.ANCHOR, comm.rank(), pipeline + ": "
                    + ops[first.op()].label() + " in " + step + "(): " + first.problem()
                    + (unpaired.size() > 1 ? " (and " + (unpaired.size() - 1) + " more unpaired in this step)" : ""));
        }
    }

    /** IB SHARP registration serves communicators with 1 rank per node only (R8). */
    public static void requireOneRankPerNode(Communicator comm, String pipeline) {
        if (comm.topology().ranksPerNode() != 1) {
            throw CollectivesException.violation(Rule.R8_IB_SHARP, comm.rank(), pipeline + " asks for IB SHARP "
                    + "registration, which needs 1 rank per node; this communicator has " + comm.topology());
        }
    }

    /** MTLink SHARP registration of an external buffer needs ncclMemAlloc/mcclMemAlloc or qualified VMM memory (R3). */
    public static void requireMtlinkSharpMemory(Communicator comm, String pipeline, DeviceBuffer buffer,
                                                String name) {
        if (!buffer.memory().isVirtualMemory()) {
            throw CollectivesException.violation(Rule.R3_MTLS_ALLOC, comm.rank(), pipeline + ": MTLink SHARP "
                    + "registration needs " + comm.libraryFunction("MemAlloc") + " or qualified VMM memory; external `"
                    + name + "` is " + buffer);
        }
    }

    /** A registered external of wrapped VMM memory must look like a qualified allocator's memory (R11). */
    public static void requireQualifiedForeignMemory(Communicator comm, String pipeline, DeviceBuffer buffer,
                                                     String name) {
        AllocatorRule.checkForeign(comm, buffer, pipeline + ": external buffer `" + name + "`");
    }
}
