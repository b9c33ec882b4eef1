package dev.collectives.processor.validation;

import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpSide;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One call of a validated pipeline, a declared op or several fused into one, every attribute its kind has known: the
 * sides it has (a {@code @Recv} has no send), and the arguments after the count and type that its kind takes.
 *
 * @param index position in its step, from 0 (a fused call's is its first op's)
 * @param step the name of the step method it belongs to
 * @param fusedFrom the declared ops fused into this call, in order; empty for a declared op
 * @param sides its send side, then its recv side, each where its kind has it
 * @param count elements, as an expression ({@code 16 * n} for a fused call)
 * @param fixed whether the count and every offset are known at compile time (literals, or naming only a declared
 *     {@code ranks})
 * @param knownCount the count where {@code fixed}, else 0
 * @param arguments its reduction, root and peer, each where its kind has it, in the order the call takes them
 */
public record ValidatedOp(
        OpKind kind,
        int index,
        String step,
        List<ValidatedOp> fusedFrom,
        List<Side> sides,
        Expr count,
        boolean fixed,
        long knownCount,
        List<Argument> arguments) {
    /** A side: the accessor, the offset in elements of its type, and that offset where the call is fixed (else 0). */
    public record Side(OpSide.Role role, String buffer, Expr offset, long knownOffset) {
        public Side {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(buffer, "buffer");
            Objects.requireNonNull(offset, "offset");
        }
    }

    /** An argument of the call after its count and type: a reduction, a root or a peer. */
    public sealed interface Argument permits Reduction, Root, Target {}

    /** The reduce op of an op that reduces. */
    public record Reduction(ReduceOp op) implements Argument {
        public Reduction {
            Objects.requireNonNull(op, "op");
        }
    }

    /** The root rank of a rooted op. */
    public record Root(int rank) implements Argument {}

    /** A point-to-point op's peer: {@code rank} is read only for {@link Peer#ABSOLUTE}. */
    public record Target(Peer peer, int rank) implements Argument {
        public Target {
            Objects.requireNonNull(peer, "peer");
        }
    }

    public ValidatedOp {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(step, "step");
        Objects.requireNonNull(count, "count");
        fusedFrom = List.copyOf(fusedFrom);
        sides = List.copyOf(sides);
        arguments = List.copyOf(arguments);
    }

    /** The validated form of the declared op {@code o}, whose attributes {@link Validation} found known. */
    static ValidatedOp of(OpDecl o) {
        OpKind kind = o.kind();
        boolean fixed = o.count() != null
                && (!kind.hasSend() || o.sendOffset() != null)
                && (!kind.hasRecv() || o.recvOffset() != null);
        List<Side> sides = new ArrayList<>(2);
        if (kind.hasSend()) {
            sides.add(new Side(
                    OpSide.Role.SEND, o.send(), o.expression(kind.sendOffsetAttribute()), fixed ? o.sendOffset() : 0));
        }
        if (kind.hasRecv()) {
            sides.add(new Side(
                    OpSide.Role.RECV, o.recv(), o.expression(kind.recvOffsetAttribute()), fixed ? o.recvOffset() : 0));
        }
        List<Argument> arguments = new ArrayList<>(2);
        if (kind.reduces()) {
            arguments.add(new Reduction(o.op()));
        }
        if (kind.hasRoot()) {
            arguments.add(new Root(o.root()));
        }
        if (kind.isPointToPoint()) {
            arguments.add(new Target(o.peer(), o.peerRank()));
        }
        return new ValidatedOp(
                kind,
                o.index(),
                o.element().getSimpleName().toString(),
                List.of(),
                sides,
                o.expression(kind.countAttribute()),
                fixed,
                fixed ? o.count() : 0,
                arguments);
    }

    /**
     * One call over the union of the ranges of {@code run}, consecutive declared ops whose ranges lie end to end:
     * the first op's buffers, offsets and arguments, and the sum of their counts ({@code 16 * n} where they are all
     * {@code n}).
     */
    static ValidatedOp fused(List<ValidatedOp> run) {
        ValidatedOp first = run.get(0);
        List<Expr> counts = run.stream().map(ValidatedOp::count).toList();
        Expr total = counts.stream().allMatch(counts.get(0)::equals)
                ? Expr.times(Expr.literal(run.size()), counts.get(0))
                : counts.stream().reduce(Expr::plus).orElseThrow();
        boolean fixed = run.stream().allMatch(ValidatedOp::fixed);
        return new ValidatedOp(
                first.kind,
                first.index,
                first.step,
                run,
                first.sides,
                total,
                fixed,
                fixed ? run.stream().mapToLong(ValidatedOp::knownCount).sum() : 0,
                first.arguments);
    }

    public boolean isFused() {
        return !fusedFrom.isEmpty();
    }

    /** The last declared op this call serves: itself, or the last fused into it. */
    public ValidatedOp last() {
        return isFused() ? fusedFrom.get(fusedFrom.size() - 1) : this;
    }

    /** "#3" for the third op of its step (a fused call's first op's): its position as messages count, from 1. */
    public String ordinal() {
        return "#" + (index + 1);
    }

    /** "#3", or "#1-#16" for a fused call: how messages and plans name a call, counting from 1. */
    public String number() {
        return ordinal() + (isFused() ? "-" + last().ordinal() : "");
    }

    /** "@AllReduce #1 in step()", as messages name it. */
    public String label() {
        return kind.annotation() + " " + number() + " in " + step + "()";
    }

    /** "the recv of @AllGather #1 in gather()", as messages name a side. */
    public String label(Side side) {
        return "the " + side.role().word() + " of " + label();
    }

    /** The side {@code role}, which the kind has. */
    public Side side(OpSide.Role role) {
        return sides.stream().filter(s -> s.role() == role).findFirst().orElseThrow();
    }

    /** How far side {@code role} reaches: the count, or count × ranks. */
    public OpKind.Extent extent(OpSide.Role role) {
        return role == OpSide.Role.SEND ? kind.sendExtent() : kind.recvExtent();
    }

    /** The elements side {@code role} touches, as an expression that may name {@code ranks}. */
    public Expr elements(OpSide.Role role) {
        return OpSide.elements(count, extent(role));
    }

    /** The peer of a point-to-point op. */
    public Target peer() {
        return arguments.stream()
                .filter(Target.class::isInstance)
                .map(Target.class::cast)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(kind + " has no peer"));
    }

    /** The accessor whose type is the op's: the send side's, or a {@code @Recv}'s recv side's. */
    public String typedBuffer() {
        return sides.get(0).buffer();
    }

    /** Whether its count or an offset names the step's parameters, so that only each call knows it. */
    public boolean usesParameters() {
        return count.usesParameters() || sides.stream().anyMatch(s -> s.offset().usesParameters());
    }
}
