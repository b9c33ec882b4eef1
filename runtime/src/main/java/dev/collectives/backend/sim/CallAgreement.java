package dev.collectives.backend.sim;

import dev.collectives.rules.Message;
import dev.collectives.runtime.DeviceBuffer;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What the ranks of one collective call must agree on, checked once all have arrived: how it was launched (R4),
 * its shape (R14), its registration (R1) and the head offsets of registered buffers (R2). The first disagreement
 * becomes the verdict for every rank, naming each rank's value.
 */
final class CallAgreement {
    private CallAgreement() {}

    static CallVerdict check(List<Launched> ops, boolean mtlinkSharp) {
        String launch = differs(ops, "launched from a graph", Launched::fromGraph);
        if (launch != null) {
            return CallVerdict.violation(Message.R4_CAPTURED_ON_SOME, launch);
        }
        OpCall first = ops.get(0).call();
        String shape = differs(ops, "op", l -> l.call().kind().method());
        shape = shape != null ? shape : differs(ops, "count", l -> l.call().count());
        shape = shape != null ? shape : differs(ops, "data type", l -> l.call().type());
        if (shape == null && first.kind().reduces()) {
            shape = differs(ops, "reduce op", l -> l.call().op());
        }
        if (shape == null && first.kind().hasRoot()) {
            shape = differs(ops, "root", l -> l.call().peer());
        }
        if (shape != null) {
            return CallVerdict.violation(
                    Message.R14_DIFFERENT_COLLECTIVES,
                    shape,
                    values(ops, l -> l.call().describe()));
        }
        for (int r = 0; r < ops.size(); r++) {
            OpCall call = ops.get(r).call();
            if (call.send() != null && call.recv() != null && call.registered() == null) {
                return CallVerdict.violation(
                        Message.R1_MIXED_CALL,
                        first.kind().method(),
                        r,
                        registration(call.sendRegistered()),
                        call.send(),
                        registration(call.recvRegistered()),
                        call.recv());
            }
        }
        String mixed = differs(ops, "registered", l -> l.call().registered());
        if (mixed != null) {
            return CallVerdict.violation(
                    Message.R1_REGISTERED_ON_SOME, first.kind().method(), mixed);
        }
        boolean registered = Boolean.TRUE.equals(first.registered());
        boolean offsetsMatter = ops.get(0).fromGraph() || mtlinkSharp;
        if (registered && offsetsMatter) {
            String why = ops.get(0).fromGraph() ? "graph registration" : "MTLink SHARP registration";
            String offsets =
                    differs(ops, "send head offset", l -> headOffset(l.call().send()));
            offsets = offsets != null
                    ? offsets
                    : differs(ops, "recv head offset", l -> headOffset(l.call().recv()));
            if (offsets != null) {
                return CallVerdict.violation(
                        Message.R2_CALL_OFFSETS, first.kind().method(), why, offsets);
            }
        }
        return null;
    }

    private static Long headOffset(DeviceBuffer buffer) {
        return buffer == null ? null : buffer.headOffset();
    }

    private static String registration(Boolean registered) {
        return Boolean.TRUE.equals(registered) ? "registered" : "unregistered";
    }

    /**
     * Null if every rank has the same value (ranks without one, e.g. a broadcast's non-root send, are skipped),
     * else "field differs: rank 0: a, rank 1: b, ...".
     */
    private static String differs(List<Launched> ops, String field, Function<Launched, Object> value) {
        Object reference = null;
        boolean seen = false;
        boolean same = true;
        for (Launched op : ops) {
            Object v = value.apply(op);
            if (v == null) {
                continue;
            }
            if (!seen) {
                reference = v;
                seen = true;
            } else if (!Objects.equals(reference, v)) {
                same = false;
            }
        }
        return same ? null : field + " differs: " + values(ops, value);
    }

    private static String values(List<Launched> ops, Function<Launched, Object> value) {
        StringBuilder s = new StringBuilder();
        for (int r = 0; r < ops.size(); r++) {
            s.append(r == 0 ? "" : ", ").append("rank ").append(r).append(": ").append(value.apply(ops.get(r)));
        }
        return s.toString();
    }
}
