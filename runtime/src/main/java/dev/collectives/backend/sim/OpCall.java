package dev.collectives.backend.sim;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.DeviceBuffer;

/**
 * One op as a rank issued it. {@code send} is null for recv and for a broadcast's non-root ranks, {@code recv} null
 * for send and for a reduce's non-root ranks. {@code peer} is the root of broadcast and reduce, the peer of send and
 * recv, -1 otherwise. The registration flags say whether each buffer counted as registered when the op was issued
 * (locally registered, or graph-registered under capture); null where the buffer is absent.
 */
record OpCall(
        OpKind kind,
        DeviceBuffer send,
        DeviceBuffer recv,
        long count,
        DataType type,
        ReduceOp op,
        int peer,
        Boolean sendRegistered,
        Boolean recvRegistered) {

    OpCall withRegistration(Boolean sendRegistered, Boolean recvRegistered) {
        return new OpCall(kind, send, recv, count, type, op, peer, sendRegistered, recvRegistered);
    }

    /** Whether this rank's buffers count as registered, when send and recv agree; null when they do not. */
    Boolean registered() {
        if (sendRegistered == null) {
            return recvRegistered;
        }
        if (recvRegistered == null || sendRegistered.equals(recvRegistered)) {
            return sendRegistered;
        }
        return null;
    }

    String describe() {
        StringBuilder s = new StringBuilder()
                .append(kind.method())
                .append('(')
                .append(count)
                .append(" x ")
                .append(type);
        if (kind.reduces()) {
            s.append(", ").append(op);
        }
        if (peer >= 0) {
            s.append(kind.hasRoot() ? ", root " : ", peer ").append(peer);
        }
        return s.append(')').toString();
    }
}
