package dev.collectives.runtime.internal;

import dev.collectives.annotation.DataType;
import dev.collectives.rules.Message;
import dev.collectives.rules.PeerPairing;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import java.util.List;

/**
 * What bind checks of what it was given (dims, externals) and of the communicator (its size, its topology), before
 * the ranks agree: each names the rank and the pipeline.
 */
public final class BindChecks {
    private BindChecks() {}

    /** A value the binder must have been given: a dim or an external, named by its setter. */
    public static <T> T given(Communicator comm, String pipeline, T value, String setter) {
        if (value == null) {
            throw CollectivesException.usage(
                    comm.rank(),
                    pipeline + ": bind() needs " + setter + "(...), which the "
                            + "binder was not given; set every dim and external first");
        }
        return value;
    }

    /** A dim is a size: at least 1, as every expression using it assumes (R13). */
    public static void requireDim(Communicator comm, String pipeline, String dim, long value) {
        if (value < 1) {
            throw CollectivesException.violation(Message.R13_DIM_NOT_POSITIVE, comm.rank(), pipeline, dim, value);
        }
    }

    /** An external buffer must have its declared element type and at least its declared count (R13). */
    public static void requireExternal(
            Communicator comm, String pipeline, DeviceBuffer buffer, String name, DataType type, long count) {
        if (buffer.type() != type || buffer.count() < count) {
            throw CollectivesException.violation(
                    Message.R13_EXTERNAL_TOO_SMALL, comm.rank(), pipeline, name, count, type, buffer);
        }
    }

    /** A pipeline that declares its world size binds only on a communicator of that size (R14). */
    public static void requireRanks(Communicator comm, String pipeline, int ranks) {
        if (comm.size() != ranks) {
            throw CollectivesException.violation(Message.R14_RANKS, comm.rank(), pipeline, ranks, comm.size());
        }
    }

    /**
     * A root or an absolute peer must be a rank of the communicator, which only bind knows when ranks = 0: the
     * processor's [DSL step] check, made with the communicator's size.
     */
    public static void requireRank(Communicator comm, String pipeline, int rank, String what) {
        if (rank < 0 || rank >= comm.size()) {
            throw CollectivesException.declaration(
                    PeerPairing.TAG,
                    PeerPairing.ANCHOR,
                    comm.rank(),
                    pipeline + ": the " + what + " is rank " + rank + ", but the communicator has " + comm.size()
                            + " ranks");
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
            throw CollectivesException.declaration(
                    PeerPairing.TAG,
                    PeerPairing.ANCHOR,
                    comm.rank(),
                    pipeline + ": "
                            + ops[first.op()].label() + " in " + step + "(): " + first.problem()
                            + (unpaired.size() > 1
                                    ? " (and " + (unpaired.size() - 1) + " more unpaired in this step)"
                                    : ""));
        }
    }

    /** IB SHARP registration serves communicators with 1 rank per node only (R8). */
    public static void requireOneRankPerNode(Communicator comm, String pipeline) {
        if (comm.topology().ranksPerNode() != 1) {
            throw CollectivesException.violation(Message.R8_RANKS_PER_NODE, comm.rank(), pipeline, comm.topology());
        }
    }

    /** MTLink SHARP registration of an external buffer needs ncclMemAlloc/mcclMemAlloc or qualified VMM memory (R3). */
    public static void requireMtlinkSharpMemory(Communicator comm, String pipeline, DeviceBuffer buffer, String name) {
        if (!buffer.memory().isVirtualMemory()) {
            throw CollectivesException.violation(
                    Message.R3_EXTERNAL_NOT_VMM, comm.rank(), pipeline, comm.libraryFunction("MemAlloc"), name, buffer);
        }
    }

    /** A registered external of wrapped VMM memory must look like a qualified allocator's memory (R11). */
    public static void requireQualifiedForeignMemory(
            Communicator comm, String pipeline, DeviceBuffer buffer, String name) {
        AllocatorRule.checkForeign(comm, buffer, pipeline + ": external buffer `" + name + "`");
    }
}
