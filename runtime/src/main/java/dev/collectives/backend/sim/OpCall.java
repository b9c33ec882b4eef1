package dev.collectives.backend.sim;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.DeviceBuffer;

/**
 * One op as a rank issued it. {@code send} and {@code recv} are its sides, the buffers from their offsets
 * ({@code sendOffset}, {@code recvOffset}, in elements, as the caller gave them): null where the op has no such side
 * or this rank does not use it (a side only the root uses, off the root). {@code peer} is the root of the rooted
 * ops, the peer of send and recv, -1 otherwise. The registration flags say whether each buffer counted as registered when the op was issued
 * (locally registered, or graph-registered under capture); null where the buffer is absent.
 */
record OpCall(
        OpKind kind,
        DeviceBuffer send,
        long sendOffset,
        DeviceBuffer recv,
        long recvOffset,
        long count,
        DataType type,
        ReduceOp op,
        int peer,
        Boolean sendRegistered,
        Boolean recvRegistered) {

    OpCall withRegistration(Boolean sendRegistered, Boolean recvRegistered) {
        return new OpCall(
                kind, send, sendOffset, recv, recvOffset, count, type, op, peer, sendRegistered, recvRegistered);
    }

    /** The address of the buffer the caller passed as send, where the side starts {@code sendOffset} elements on. */
    long sendHead() {
        return send == null ? 0 : send.address() - sendOffset * type.size();
    }

    /** The address of the buffer the caller passed as recv. */
    long recvHead() {
        return recv == null ? 0 : recv.address() - recvOffset * type.size();
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
