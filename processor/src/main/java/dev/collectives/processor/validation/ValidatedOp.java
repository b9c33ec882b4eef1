package dev.collectives.processor.validation;

import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpSide;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The values of one call of a validated pipeline, a declared op or several fused into one, every attribute its
 * kind has known: the sides it has (a {@code @Recv} has no send), its reduction, its root or its peer, each present
 * exactly where {@link #kind()} has it.
 *
 * @param count elements, as an expression ({@code 16 * n} for a fused call)
 * @param knownCount the count where it is known at compile time
 * @param knownSendOffset the send offset where it is known at compile time
 * @param knownRecvOffset the recv offset where it is known at compile time
 */
public record ValidatedOp(
        OpKind kind,
        Optional<Side> send,
        Optional<Side> recv,
        Expr count,
        OptionalLong knownCount,
        OptionalLong knownSendOffset,
        OptionalLong knownRecvOffset,
        Optional<ReduceOp> reduction,
        OptionalInt root,
        Optional<Target> peer) {
    /** A side: the accessor, and the offset in elements of its type. */
    public record Side(String buffer, Expr offset) {
        public Side {
            Objects.requireNonNull(buffer, "buffer");
            Objects.requireNonNull(offset, "offset");
        }
    }

    /** A point-to-point op's peer: {@code rank} is read only for {@link Peer#ABSOLUTE}. */
    public record Target(Peer peer, int rank) {
        public Target {
            Objects.requireNonNull(peer, "peer");
        }
    }

    public ValidatedOp {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(send, "send");
        Objects.requireNonNull(recv, "recv");
        Objects.requireNonNull(count, "count");
        Objects.requireNonNull(knownCount, "knownCount");
        Objects.requireNonNull(knownSendOffset, "knownSendOffset");
        Objects.requireNonNull(knownRecvOffset, "knownRecvOffset");
        Objects.requireNonNull(reduction, "reduction");
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(peer, "peer");
    }

    /** The validated form of {@code o}, whose attributes {@link Validation} found known. */
    static ValidatedOp of(OpDecl o) {
        OpKind kind = o.kind();
        return new ValidatedOp(
                kind,
                kind.hasSend()
                        ? Optional.of(new Side(o.send(), o.expression(kind.sendOffsetAttribute())))
                        : Optional.empty(),
                kind.hasRecv()
                        ? Optional.of(new Side(o.recv(), o.expression(kind.recvOffsetAttribute())))
                        : Optional.empty(),
                o.expression(kind.countAttribute()),
                known(o.count()),
                known(o.sendOffset()),
                known(o.recvOffset()),
                kind.reduces() ? Optional.of(o.op()) : Optional.empty(),
                kind.hasRoot() ? OptionalInt.of(o.root()) : OptionalInt.empty(),
                kind.isPointToPoint() ? Optional.of(new Target(o.peer(), o.peerRank())) : Optional.empty());
    }

    private static OptionalLong known(Long value) {
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    /** The side {@code role}, which the kind has. */
    public Side side(OpSide.Role role) {
        return (role == OpSide.Role.SEND ? send : recv).orElseThrow();
    }

    /** The elements side {@code role} touches, as an expression that may name {@code ranks}. */
    public Expr elements(OpSide.Role role) {
        return OpSide.elements(count, role == OpSide.Role.SEND ? kind.sendExtent() : kind.recvExtent());
    }

    /** The offset of side {@code role} where it is known at compile time. */
    public OptionalLong knownOffset(OpSide.Role role) {
        return role == OpSide.Role.SEND ? knownSendOffset : knownRecvOffset;
    }

    /** The accessor whose type is the op's: the send side's, or a {@code @Recv}'s recv side's. */
    public String typedBuffer() {
        return send.or(() -> recv).orElseThrow().buffer();
    }

    /** Whether its count or an offset names the step's parameters, so that only each call knows it. */
    public boolean usesParameters() {
        return count.usesParameters()
                || send.filter(s -> s.offset().usesParameters()).isPresent()
                || recv.filter(s -> s.offset().usesParameters()).isPresent();
    }
}
