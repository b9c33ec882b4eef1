package dev.collectives.processor.model;

import dev.collectives.annotation.OpKind;
import dev.collectives.processor.expr.Expr;

/**
 * One side of an op: the buffer it sends from or receives into, where in it the op starts, and how many elements it
 * touches there. What R1, R7 and R13 check and what the writer passes to the communicator.
 */
public record OpSide(OpDecl op, Role role, BufferDecl buffer) {
    /** Whether the op reads the buffer or writes it. */
    public enum Role {
        SEND("send"),
        RECV("recv");

        private final String word;

        Role(String word) {
            this.word = word;
        }

        /** "send", as messages name the side. */
        public String word() {
            return word;
        }
    }

    /** "sendOffset", "recvOffset", or "offset" for @Send and @Recv. */
    public String offsetAttribute() {
        return role == Role.SEND ? op.kind().sendOffsetAttribute() : op.kind().recvOffsetAttribute();
    }

    /** The offset in elements of the buffer's type; null when it could not be read. */
    public Expr offset() {
        return op.expression(offsetAttribute());
    }

    /** The offset when known at compile time (a literal, or naming only a declared {@code ranks}), else null. */
    public Long knownOffset() {
        return role == Role.SEND ? op.sendOffset() : op.recvOffset();
    }

    /** Count, or count × ranks: allgather's recv, reducescatter's send and both of alltoall's. */
    public OpKind.Extent extent() {
        return role == Role.SEND ? op.kind().sendExtent() : op.kind().recvExtent();
    }

    /** The elements it touches, as an expression that may name {@code ranks}; null when the count is unreadable. */
    public Expr elements() {
        Expr count = op.expression(op.kind().countAttribute());
        return count == null ? null : elements(count, extent());
    }

    /** The elements a side of {@code extent} touches for a {@code count}: the count, or count × ranks. */
    public static Expr elements(Expr count, OpKind.Extent extent) {
        return extent == OpKind.Extent.COUNT
                ? count
                : Expr.times(count, new Expr.Name(ModelReader.RANKS, Expr.Scope.RANKS));
    }

    /**
     * Whether this side is what it is in the op's in-place form at the same offsets on every rank: allgather's
     * send sits at {@code recv + rank × sendCount} in place, an offset R2 forbids.
     */
    public boolean inPlaceForm() {
        return extent() == OpKind.Extent.COUNT;
    }

    /** The value naming the buffer ({@code send = "a"}). */
    public Site site() {
        return op.site(role == Role.SEND ? op.kind().sendAttribute() : op.kind().recvAttribute());
    }

    /** The offset's value, or the annotation when it is left at its default. */
    public Site offsetSite() {
        return op.site(offsetAttribute());
    }

    /** "the recv of @AllGather #1 in gather()", as messages name it. */
    public String label() {
        return "the " + role.word() + " of " + op.label();
    }
}
