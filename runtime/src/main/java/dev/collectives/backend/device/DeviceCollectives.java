package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.OpKind.Extent;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.internal.CallArguments;
import dev.collectives.runtime.internal.CallArguments.Sides;
import dev.collectives.runtime.spi.FlightRecorder;
import java.util.Locale;
import java.util.Optional;

/**
 * One rank's collectives and point-to-point calls: each checks its arguments in Java ({@link CallArguments#op}, as
 * every backend does), records itself, and is then one native call on primitive handles, allocating nothing. During
 * a capture, the stream remembers the memory each op uses (R5).
 */
final class DeviceCollectives {
    /** The environment variable that chooses how gather and scatter run: "native" (the default) or "send-recv". */
    static final String GATHER_SCATTER_VARIABLE = "COLLECTIVES_GATHER_SCATTER";
    /** The system property read before {@link #GATHER_SCATTER_VARIABLE}. */
    static final String GATHER_SCATTER_PROPERTY = "collectives.gatherScatter";

    private static final String NATIVE = "native";
    private static final String SEND_RECV = "send-recv";

    private final NativeComm handle;
    private final NativeLibrary library;
    private final NativeApi api;
    private final long lib;
    private final int rank;
    private final int size;
    private final CallArguments arguments;
    private final FlightRecorder recorder;
    /** Whether a setting asks for gather and scatter as groups of sends and receives. */
    private final boolean forcedSendRecv;
    /** Whether gather and scatter, each, call the library's own function, else a group of sends and receives. */
    private final boolean gatherNative;

    private final boolean scatterNative;

    DeviceCollectives(DeviceCommunicator comm, NativeComm handle, CallArguments arguments, FlightRecorder recorder) {
        this.handle = handle;
        this.library = handle.library();
        this.api = library.api;
        this.lib = library.lib;
        this.rank = comm.rank();
        this.size = comm.size();
        this.arguments = arguments;
        this.recorder = recorder;
        this.forcedSendRecv = sendRecvAsked(rank);
        this.gatherNative = !forcedSendRecv && library.has(NativeLibrary.Slots.GATHER);
        this.scatterNative = !forcedSendRecv && library.has(NativeLibrary.Slots.SCATTER);
    }

    /** Whether {@value #GATHER_SCATTER_VARIABLE} (or {@value #GATHER_SCATTER_PROPERTY}) asks for the send/recv form. */
    private static boolean sendRecvAsked(int rank) {
        String value = System.getProperty(GATHER_SCATTER_PROPERTY);
        if (value == null || value.isBlank()) {
            value = System.getenv(GATHER_SCATTER_VARIABLE);
        }
        if (value == null || value.isBlank() || value.trim().equalsIgnoreCase(NATIVE)) {
            return false;
        }
        if (value.trim().toLowerCase(Locale.ROOT).equals(SEND_RECV)) {
            return true;
        }
        throw CollectivesException.usage(
                rank,
                GATHER_SCATTER_VARIABLE + " (or -D" + GATHER_SCATTER_PROPERTY + ") is '" + value + "', not '" + NATIVE
                        + "' or '" + SEND_RECV + "'");
    }

    void allReduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        OpKind kind = OpKind.ALL_REDUCE;
        Sides sides = checked(kind, send, sendOffset, recv, recvOffset, count, type, op, -1, s);
        done(
                api.allReduce(
                        lib,
                        sides.sendAddress(type),
                        sides.recvAddress(type),
                        count,
                        type.code(),
                        op.code(),
                        handle.handle(),
                        s.handle),
                kind,
                type,
                s,
                sides);
    }

    void allGather(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long sendCount,
            DataType type,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        OpKind kind = OpKind.ALL_GATHER;
        Sides sides = checked(kind, send, sendOffset, recv, recvOffset, sendCount, type, null, -1, s);
        done(
                api.allGather(
                        lib,
                        sides.sendAddress(type),
                        sides.recvAddress(type),
                        sendCount,
                        type.code(),
                        handle.handle(),
                        s.handle),
                kind,
                type,
                s,
                sides);
    }

    void reduceScatter(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            DataType type,
            ReduceOp op,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        OpKind kind = OpKind.REDUCE_SCATTER;
        Sides sides = checked(kind, send, sendOffset, recv, recvOffset, recvCount, type, op, -1, s);
        done(
                api.reduceScatter(
                        lib,
                        sides.sendAddress(type),
                        sides.recvAddress(type),
                        recvCount,
                        type.code(),
                        op.code(),
                        handle.handle(),
                        s.handle),
                kind,
                type,
                s,
                sides);
    }

    void broadcast(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            int root,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        OpKind kind = OpKind.BROADCAST;
        Sides sides = checked(kind, send, sendOffset, recv, recvOffset, count, type, null, root, s);
        done(
                api.broadcast(
                        lib,
                        sides.sendAddress(type),
                        sides.recvAddress(type),
                        count,
                        type.code(),
                        root,
                        handle.handle(),
                        s.handle),
                kind,
                type,
                s,
                sides);
    }

    void reduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int root,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        OpKind kind = OpKind.REDUCE;
        Sides sides = checked(kind, send, sendOffset, recv, recvOffset, count, type, op, root, s);
        done(
                api.reduce(
                        lib,
                        sides.sendAddress(type),
                        sides.recvAddress(type),
                        count,
                        type.code(),
                        op.code(),
                        root,
                        handle.handle(),
                        s.handle),
                kind,
                type,
                s,
                sides);
    }

    /** {@code AlltoAll} where the library has it, else the equivalent group of sends and receives. */
    void allToAll(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        OpKind kind = OpKind.ALL_TO_ALL;
        Sides sides = checked(kind, send, sendOffset, recv, recvOffset, count, type, null, -1, s);
        if (library.has(NativeLibrary.Slots.ALL_TO_ALL)) {
            done(
                    api.allToAll(
                            lib,
                            sides.sendAddress(type),
                            sides.recvAddress(type),
                            count,
                            type.code(),
                            handle.handle(),
                            s.handle),
                    kind,
                    type,
                    s,
                    sides);
            return;
        }
        viaSendRecv(kind, sides, count, type, -1, s);
    }

    /**
     * {@code Gather} where the library has it and {@value #GATHER_SCATTER_VARIABLE} does not ask otherwise, else
     * the same as a group: every rank sends to the root, which receives rank r's into block r.
     */
    void gather(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long sendCount,
            DataType type,
            int root,
            Stream stream) {
        rooted(OpKind.GATHER, gatherNative, send, sendOffset, recv, recvOffset, sendCount, type, root, stream);
    }

    /**
     * {@code Scatter} where the library has it and {@value #GATHER_SCATTER_VARIABLE} does not ask otherwise, else
     * the same as a group: the root sends block r to rank r, and every rank receives its block from the root.
     */
    void scatter(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            DataType type,
            int root,
            Stream stream) {
        rooted(OpKind.SCATTER, scatterNative, send, sendOffset, recv, recvOffset, recvCount, type, root, stream);
    }

    /** A gather or scatter: the library's function where {@code viaLibrary}, else a group of sends and receives. */
    private void rooted(
            OpKind kind,
            boolean viaLibrary,
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            int root,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        Sides sides = checked(kind, send, sendOffset, recv, recvOffset, count, type, null, root, s);
        if (!viaLibrary) {
            viaSendRecv(kind, sides, count, type, root, s);
            return;
        }
        long sendAddress = sides.sendAddress(type);
        long recvAddress = sides.recvAddress(type);
        int rc = kind == OpKind.GATHER
                ? api.gather(lib, sendAddress, recvAddress, count, type.code(), root, handle.handle(), s.handle)
                : api.scatter(lib, sendAddress, recvAddress, count, type.code(), root, handle.handle(), s.handle);
        done(rc, kind, type, s, sides);
    }

    void send(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        DeviceStream s = enqueue(stream);
        Sides sides = checked(OpKind.SEND, buffer, offset, null, 0, count, type, null, peer, s);
        sendPart(sides, sides.sendAddress(type), count, type, peer, s);
    }

    void recv(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        DeviceStream s = enqueue(stream);
        Sides sides = checked(OpKind.RECV, null, 0, buffer, offset, count, type, null, peer, s);
        recvPart(sides, sides.recvAddress(type), count, type, peer, s);
    }

    /**
     * {@code kind} as one group of sends and receives, where the library lacks its function: a side of
     * {@code count × ranks} elements is exchanged block by block with every rank (rank r's block at
     * {@code r × count}), a side of {@code count} with the root. A side this rank does not use is left out.
     */
    private void viaSendRecv(OpKind kind, Sides sides, long count, DataType type, int root, DeviceStream s) {
        long bytes = count * type.size();
        boolean sendBlocks = kind.sendExtent() == Extent.COUNT_TIMES_RANKS;
        boolean recvBlocks = kind.recvExtent() == Extent.COUNT_TIMES_RANKS;
        groupStart();
        try {
            for (int peer = 0; peer < size; peer++) {
                if (sides.send() != null && (sendBlocks || peer == root)) {
                    sendPart(sides, sides.sendAddress(type) + (sendBlocks ? peer * bytes : 0), count, type, peer, s);
                }
                if (sides.recv() != null && (recvBlocks || peer == root)) {
                    recvPart(sides, sides.recvAddress(type) + (recvBlocks ? peer * bytes : 0), count, type, peer, s);
                }
            }
        } finally {
            groupEnd();
        }
    }

    /** One {@code Send} of an op: the whole of a send, or a part of a collective done as a group. */
    private void sendPart(Sides sides, long address, long count, DataType type, int peer, DeviceStream s) {
        done(api.send(lib, address, count, type.code(), peer, handle.handle(), s.handle), OpKind.SEND, type, s, sides);
    }

    /** One {@code Recv} of an op: the whole of a receive, or a part of a collective done as a group. */
    private void recvPart(Sides sides, long address, long count, DataType type, int peer, DeviceStream s) {
        done(api.recv(lib, address, count, type.code(), peer, handle.handle(), s.handle), OpKind.RECV, type, s, sides);
    }

    void groupStart() {
        library.check(api.groupStart(lib), rank, handle.handle(), "GroupStart");
        NativeComm.groupStarted();
    }

    /** Where non-blocking communicators answer "in progress", waits until each that enqueued in the group is done. */
    void groupEnd() {
        handle.groupEnded(api.groupEnd(lib), library.dialect.ccl("GroupEnd"));
    }

    /** Why ops of {@code kind} run as a group of sends and receives here; empty where the library's function runs. */
    Optional<String> sendRecvForm(OpKind kind) {
        boolean rooted = kind == OpKind.GATHER || kind == OpKind.SCATTER;
        boolean grouped = kind == OpKind.ALL_TO_ALL && !library.has(NativeLibrary.Slots.ALL_TO_ALL)
                || kind == OpKind.GATHER && !gatherNative
                || kind == OpKind.SCATTER && !scatterNative;
        if (!grouped) {
            return Optional.empty();
        }
        return Optional.of(
                rooted && forcedSendRecv
                        ? GATHER_SCATTER_VARIABLE + " (or -D" + GATHER_SCATTER_PROPERTY + ") asks for " + SEND_RECV
                        : "the library has no " + library.dialect.ccl(kind.cName()));
    }

    private DeviceStream enqueue(Stream stream) {
        handle.requireOpen();
        handle.enqueuing();
        DeviceStream onto = DeviceStream.of(stream, rank);
        onto.issuedBy(handle);
        return onto;
    }

    /** The op's sides once checked ({@link CallArguments#op}), recorded as the flight recorder records every op. */
    private Sides checked(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int peer,
            DeviceStream s) {
        Sides sides = arguments.op(kind, send, sendOffset, recv, recvOffset, count, type, op, peer);
        recorder.enqueued(
                kind,
                head(sides.send()),
                sides.sendOffset(),
                head(sides.recv()),
                sides.recvOffset(),
                count,
                type,
                peer,
                s,
                s.capturing(),
                null);
        return sides;
    }

    private static long head(DeviceBuffer buffer) {
        return buffer == null ? 0 : buffer.address();
    }

    /** The op's native answer {@code rc}: "in progress" waits until the communicator has it, a failure throws; the stream keeps the memory. */
    private void done(int rc, OpKind kind, DataType type, DeviceStream stream, Sides sides) {
        if (rc != 0) {
            handle.complete(rc, library.dialect.ccl(kind.cName()) + " of " + library.dialect.typeName(type));
        }
        if (sides.send() != null) {
            stream.used(sides.send().memory());
        }
        if (sides.recv() != null) {
            stream.used(sides.recv().memory());
        }
    }
}
