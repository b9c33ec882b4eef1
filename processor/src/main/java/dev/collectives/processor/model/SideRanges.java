package dev.collectives.processor.model;

import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.expr.Prover;
import dev.collectives.processor.expr.Verdict;
import java.util.Optional;

/**
 * Where ops' sides lie: byte ranges from the head of their root allocation, as expressions, and what the
 * {@link Prover} says of two of them. R7's conditions and the step plans ask the same questions.
 */
public final class SideRanges {
    private final PipelineModel model;
    private final Prover prover;

    public SideRanges(PipelineModel model, Prover prover) {
        this.model = model;
        this.prover = prover;
    }

    /** Bytes from the head of the buffer's root: the sum of the offsets along its chain of views. */
    Expr offsetInRoot(BufferDecl b) {
        Expr offset = Expr.literal(0);
        for (BufferDecl v = b;
                v.kind() == BufferDecl.Kind.VIEW;
                v = model.buffer(v.of()).orElseThrow()) {
            offset = Expr.plus(v.expression("offsetBytes"), offset);
        }
        return offset;
    }

    static Expr bytes(Expr elements, int size) {
        return Expr.times(elements, Expr.literal(size));
    }

    /** [start, end) in bytes from the head of the side's root allocation. */
    public Expr[] range(OpSide side) {
        return range(side.buffer(), side.offset(), side.elements());
    }

    /** [start, end) in bytes from the head of {@code buffer}'s root of {@code elements} from {@code offset}. */
    public Expr[] range(BufferDecl buffer, Expr offset, Expr elements) {
        int size = buffer.type().size();
        Expr start = Expr.plus(offsetInRoot(buffer), bytes(offset, size));
        return new Expr[] {start, Expr.plus(start, bytes(elements, size))};
    }

    public boolean sameRoot(OpSide a, OpSide b) {
        return sameRoot(a.buffer(), b.buffer());
    }

    public boolean sameRoot(BufferDecl a, BufferDecl b) {
        Optional<BufferDecl> root = model.root(a);
        return root.isPresent() && root.get() == model.root(b).orElse(null);
    }

    /**
     * Whether the sides lie in memory of two allocations, so that no byte of one is a byte of the other: two roots,
     * not both {@code @External} (externals are the user's, and two of them may be parts of one allocation).
     */
    public boolean separateAllocations(OpSide a, OpSide b) {
        return separateAllocations(a.buffer(), b.buffer());
    }

    /** {@link #separateAllocations(OpSide, OpSide)} of two accessors. */
    public boolean separateAllocations(BufferDecl a, BufferDecl b) {
        Optional<BufferDecl> first = model.root(a);
        Optional<BufferDecl> second = model.root(b);
        return first.isPresent()
                && second.isPresent()
                && first.get() != second.get()
                && (first.get().kind() != BufferDecl.Kind.EXTERNAL
                        || second.get().kind() != BufferDecl.Kind.EXTERNAL);
    }

    /** {@code a < b} for every value. */
    public boolean below(Expr a, Expr b) {
        return prover.atMost(Expr.plus(a, Expr.literal(1)), b) == Verdict.TRUE;
    }

    /** TRUE when the ranges are apart for every value, FALSE when they overlap for every value. */
    public Verdict apart(Expr[] a, Expr[] b) {
        if (prover.atMost(a[1], b[0]) == Verdict.TRUE || prover.atMost(b[1], a[0]) == Verdict.TRUE) {
            return Verdict.TRUE;
        }
        return below(a[0], b[1]) && below(b[0], a[1]) ? Verdict.FALSE : Verdict.UNKNOWN;
    }
}
