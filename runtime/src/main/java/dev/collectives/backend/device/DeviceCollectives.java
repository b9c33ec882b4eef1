package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.OpKind.Extent;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.bootstrap.Setting;
import dev.collectives.runtime.internal.CallArguments;
import dev.collectives.runtime.internal.SettingValues;
import dev.collectives.runtime.spi.FlightRecorder;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * One rank's collectives and point-to-point calls, all through {@link #enqueue}: each checks its arguments in Java
 * ({@link CallArguments#op}, as every backend does), records itself, and is then one native call on primitive
 * handles ({@link NativeComm#enqueue}). During a capture, the stream remembers the memory each op uses (R5).
 */
final class DeviceCollectives {
    /** The environment variable that chooses how gather and scatter run: "native" (the default) or "send-recv". */
    static final String GATHER_SCATTER_VARIABLE = Setting.GATHER_SCATTER.variable;
    /** The system property read before {@link #GATHER_SCATTER_VARIABLE}. */
    static final String GATHER_SCATTER_PROPERTY = Setting.GATHER_SCATTER.property;

    private static final String NATIVE = "native";
    private static final String SEND_RECV = "send-recv";

    /** The ops that {@value #GATHER_SCATTER_VARIABLE} may ask to run as groups of sends and receives. */
    private static final Set<OpKind> GATHER_SCATTER = EnumSet.of(OpKind.GATHER, OpKind.SCATTER);

    private final NativeComm handle;
    private final NativeLibrary library;
    private final int rank;
    private final int size;
    private final CallArguments arguments;
    private final FlightRecorder recorder;
    /** Whether a setting asks for gather and scatter as groups of sends and receives. */
    private final boolean forcedSendRecv;
    /** Whether each op, by ordinal, runs as a group of sends and receives instead of the library's function. */
    private final boolean[] viaSendRecv = new boolean[OpKind.values().length];

    DeviceCollectives(NativeComm handle, int rank, int size, CallArguments arguments, FlightRecorder recorder) {
        this.handle = handle;
        this.library = handle.library();
        this.rank = rank;
        this.size = size;
        this.arguments = arguments;
        this.recorder = recorder;
        this.forcedSendRecv = sendRecvAsked(rank);
        for (OpKind kind : OpKind.values()) {
            viaSendRecv[kind.ordinal()] = !library.has(kind) || forcedSendRecv && GATHER_SCATTER.contains(kind);
        }
    }

    /** Whether {@value #GATHER_SCATTER_VARIABLE} (or {@value #GATHER_SCATTER_PROPERTY}) asks for the send/recv form. */
    private static boolean sendRecvAsked(int rank) {
        String value = SettingValues.ofProcess(Setting.GATHER_SCATTER).orElse(NATIVE);
        if (value.equalsIgnoreCase(NATIVE)) {
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

    /**
     * Every op: checked in Java ({@link CallArguments#check}), recorded, then one native call on primitive handles, or
     * where the library lacks the op's function (or a setting asks so) the same as a group of sends and receives.
     * {@code op} is read where the op reduces, {@code rootOrPeer} where it has a root or a peer; a send passes its
     * buffer as {@code send}, a receive as {@code recv}. Allocates nothing.
     */
    void enqueue(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int rootOrPeer,
            Stream stream) {
        handle.requireOpen();
        DeviceStream s = DeviceStream.of(stream, rank);
        ReduceOp reduction = kind.reduces() ? op : null;
        int peer = CallArguments.peerOf(kind, rootOrPeer);
        arguments.check(kind, send, sendOffset, recv, recvOffset, count, type, reduction, peer);
        // the sides this rank uses; a side only the root uses is left out off the root
        DeviceBuffer sendSide = kind.usesSend(rank, peer) ? send : null;
        DeviceBuffer recvSide = kind.usesRecv(rank, peer) ? recv : null;
        long sendAt = sendSide == null ? 0 : sendOffset;
        long recvAt = recvSide == null ? 0 : recvOffset;
        recorder.enqueued(
                kind, head(sendSide), sendAt, head(recvSide), recvAt, count, type, peer, s, s.capturing(), null);
        long sendAddress = CallArguments.address(sendSide, sendAt, type);
        long recvAddress = CallArguments.address(recvSide, recvAt, type);
        if (viaSendRecv[kind.ordinal()]) {
            viaSendRecv(kind, sendAddress, recvAddress, count, type, peer, s);
        } else {
            call(kind, sendAddress, recvAddress, count, type, reduction, peer, s);
        }
        s.used(sendSide, recvSide);
    }

    /**
     * {@code kind} as one group of sends and receives, where the library lacks its function: a side of
     * {@code count × ranks} elements is exchanged block by block with every rank (rank r's block at
     * {@code r × count}), a side of {@code count} with the root. A side this rank does not use (address 0) is left
     * out.
     */
    private void viaSendRecv(
            OpKind kind, long sendAddress, long recvAddress, long count, DataType type, int root, DeviceStream s) {
        long bytes = count * type.size();
        boolean sendBlocks = kind.sendExtent() == Extent.COUNT_TIMES_RANKS;
        boolean recvBlocks = kind.recvExtent() == Extent.COUNT_TIMES_RANKS;
        groupStart();
        try {
            for (int peer = 0; peer < size; peer++) {
                if (sendAddress != 0 && (sendBlocks || peer == root)) {
                    call(OpKind.SEND, sendAddress + (sendBlocks ? peer * bytes : 0), 0, count, type, null, peer, s);
                }
                if (recvAddress != 0 && (recvBlocks || peer == root)) {
                    call(OpKind.RECV, 0, recvAddress + (recvBlocks ? peer * bytes : 0), count, type, null, peer, s);
                }
            }
        } finally {
            groupEnd();
        }
    }

    /**
     * The library's function of {@code kind} at these addresses, the whole op or a send or receive of one done as a
     * group; "in progress" waits until the communicator has it, a failure throws.
     */
    private void call(
            OpKind kind,
            long sendAddress,
            long recvAddress,
            long count,
            DataType type,
            ReduceOp op,
            int peer,
            DeviceStream s) {
        s.issuedBy(handle);
        int rc = handle.enqueue(
                kind.ordinal(),
                sendAddress,
                recvAddress,
                count,
                type.code(),
                op == null ? 0 : op.code(),
                peer,
                s.handle);
        if (rc != 0) {
            handle.complete(rc, library.dialect.ccl(kind.cName()) + " of " + library.dialect.typeName(type));
        }
    }

    void groupStart() {
        library.check(library.api.groupStart(library.lib), rank, handle.handle(), "GroupStart");
        OpenGroups.started();
    }

    /** Where non-blocking communicators answer "in progress", waits until each that enqueued in the group is done. */
    void groupEnd() {
        OpenGroups.ended(handle, library.api.groupEnd(library.lib), library.dialect.ccl("GroupEnd"));
    }

    /** Why ops of {@code kind} run as a group of sends and receives here; empty where the library's function runs. */
    Optional<String> sendRecvForm(OpKind kind) {
        if (!viaSendRecv[kind.ordinal()]) {
            return Optional.empty();
        }
        return Optional.of(
                library.has(kind)
                        ? GATHER_SCATTER_VARIABLE + " (or -D" + GATHER_SCATTER_PROPERTY + ") asks for " + SEND_RECV
                        : "the library has no " + library.dialect.ccl(kind.cName()));
    }

    private static long head(DeviceBuffer buffer) {
        return buffer == null ? 0 : buffer.address();
    }
}
