package dev.collectives.backend.sim;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.internal.ByteRanges;
import dev.collectives.runtime.internal.CallArguments;

/**
 * The checks of a rank's collective and point-to-point calls, on the calling thread, before the op goes to a
 * stream: each returns the op as an {@link OpCall}, whose sides are the buffers from their offsets.
 */
final class OpCallChecks {
    private final SimCommunicator comm;
    private final int rank;
    private final CallArguments arguments;

    OpCallChecks(SimCommunicator comm, CallArguments arguments) {
        this.comm = comm;
        this.rank = comm.rank();
        this.arguments = arguments;
    }

    OpCall allReduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op) {
        return checked(OpKind.ALL_REDUCE, send, sendOffset, count, recv, recvOffset, count, count, type, op, -1, 0);
    }

    OpCall allGather(
            DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long sendCount, DataType type) {
        OpKind kind = OpKind.ALL_GATHER;
        return checked(
                kind,
                send,
                sendOffset,
                sendCount,
                recv,
                recvOffset,
                arguments.elements(kind.method(), sendCount, type, true),
                sendCount,
                type,
                null,
                -1,
                (long) rank * sendCount);
    }

    OpCall reduceScatter(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            DataType type,
            ReduceOp op) {
        OpKind kind = OpKind.REDUCE_SCATTER;
        return checked(
                kind,
                send,
                sendOffset,
                arguments.elements(kind.method(), recvCount, type, true),
                recv,
                recvOffset,
                recvCount,
                recvCount,
                type,
                op,
                -1,
                -(long) rank * recvCount);
    }

    OpCall broadcast(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            int root) {
        arguments.peer(OpKind.BROADCAST.method(), "root", root);
        return checked(
                OpKind.BROADCAST,
                rank == root ? send : null,
                sendOffset,
                count,
                recv,
                recvOffset,
                count,
                count,
                type,
                null,
                root,
                0);
    }

    OpCall reduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int root) {
        arguments.peer(OpKind.REDUCE.method(), "root", root);
        return checked(
                OpKind.REDUCE,
                send,
                sendOffset,
                count,
                rank == root ? recv : null,
                recvOffset,
                count,
                count,
                type,
                op,
                root,
                0);
    }

    OpCall allToAll(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count, DataType type) {
        OpKind kind = OpKind.ALL_TO_ALL;
        long total = arguments.elements(kind.method(), count, type, true);
        return checked(kind, send, sendOffset, total, recv, recvOffset, total, count, type, null, -1, 0);
    }

    OpCall send(DeviceBuffer buffer, long offset, long count, DataType type, int peer) {
        arguments.peer(OpKind.SEND.method(), "peer", peer);
        return checked(OpKind.SEND, buffer, offset, count, null, 0, 0, count, type, null, peer, 0);
    }

    OpCall recv(DeviceBuffer buffer, long offset, long count, DataType type, int peer) {
        arguments.peer(OpKind.RECV.method(), "peer", peer);
        return checked(OpKind.RECV, null, 0, 0, buffer, offset, count, count, type, null, peer, 0);
    }

    /**
     * Checks an op's arguments ({@link CallArguments}: count and reduce op, R13; buffers of this rank's live memory
     * with room from their offsets), and that send and recv regions are either in place (send
     * {@code inPlaceShift} elements from recv) or disjoint (R7). The op's sides are the buffers from their offsets.
     */
    private OpCall checked(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            long sendCount,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            long count,
            DataType type,
            ReduceOp op,
            int peer,
            long inPlaceShift) {
        String call = kind.method();
        comm.requireUsable(call);
        arguments.elements(call, count, type, false);
        if (op != null) {
            arguments.reduceOp(call, op, type);
        }
        // Only the root's send of a broadcast and the root's recv of a reduce matter.
        boolean sendRequired = kind != OpKind.RECV && !(kind == OpKind.BROADCAST && rank != peer);
        boolean recvRequired = kind != OpKind.SEND && !(kind == OpKind.REDUCE && rank != peer);
        DeviceBuffer sendSide = side(call, "send", send, sendRequired, sendOffset, sendCount, type);
        DeviceBuffer recvSide = side(call, "recv", recv, recvRequired, recvOffset, recvCount, type);
        if (sendSide != null && recvSide != null) {
            // addresses compared, shown as bytes from the send allocation's head, as bind shows them
            long sendHead = sendSide.address() - sendSide.headOffset();
            long recvStart = recvSide.address() - sendHead;
            ByteRanges.requireInPlaceOrApart(
                    rank,
                    call,
                    inPlaceShift * type.size(),
                    sendSide.headOffset(),
                    sendSide.headOffset() + sendCount * type.size(),
                    recvStart,
                    recvStart + recvCount * type.size());
        }
        return new OpCall(kind, sendSide, recvSide, count, type, op, peer, null, null);
    }

    /** The part of {@code buffer} from {@code offset} elements on, once it holds {@code elements}; or null. */
    private DeviceBuffer side(
            String call,
            String role,
            DeviceBuffer buffer,
            boolean required,
            long offset,
            long elements,
            DataType type) {
        if (!arguments.room(call, role, buffer, required, offset, elements, type)) {
            return null;
        }
        return offset == 0
                ? buffer
                : buffer.view(offset * type.size(), type, buffer.sizeBytes() / type.size() - offset);
    }
}
