package dev.collectives.backend.sim;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.internal.CallArguments;

/**
 * The checks of a rank's collective and point-to-point calls, on the calling thread, before the op goes to a
 * stream: {@link CallArguments#op}, as on every backend; the op comes back as an {@link OpCall}, whose sides are the
 * buffers from their offsets.
 */
final class OpCallChecks {
    private final SimCommunicator comm;
    private final CallArguments arguments;

    OpCallChecks(SimCommunicator comm, CallArguments arguments) {
        this.comm = comm;
        this.arguments = arguments;
    }

    /** A checked op of {@code kind}; {@code peer} is its root or peer, -1 where it has neither. */
    OpCall checked(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int peer) {
        comm.requireUsable(kind.method());
        CallArguments.Sides sides = arguments.op(kind, send, sendOffset, recv, recvOffset, count, type, op, peer);
        return new OpCall(
                kind,
                from(sides.send(), sides.sendOffset(), type),
                sides.sendOffset(),
                from(sides.recv(), sides.recvOffset(), type),
                sides.recvOffset(),
                count,
                type,
                kind.reduces() ? op : null,
                peer,
                null,
                null);
    }

    /** The part of {@code buffer} from {@code offset} elements on; null without a buffer. */
    private static DeviceBuffer from(DeviceBuffer buffer, long offset, DataType type) {
        if (buffer == null || offset == 0) {
            return buffer;
        }
        return buffer.view(offset * type.size(), type, buffer.sizeBytes() / type.size() - offset);
    }
}
