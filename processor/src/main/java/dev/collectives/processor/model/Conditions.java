package dev.collectives.processor.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import javax.lang.model.element.VariableElement;

import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.expr.Prover;
import dev.collectives.processor.expr.Verdict;
import dev.collectives.rules.Rule;

/**
 * The conditions R7 and R13 put on a pipeline's sizes and offsets where an expression is not known at compile time
 * (constant ones stay with the constant validators), each with what the {@link Prover} says of it: counts are at
 * least 1 and their bytes fit a long (R13), views and ops lie inside their buffers, views are aligned to their
 * element size, an op's send and recv coincide or are apart (R7), and step parameters are at least 0 (the
 * assumption every proof makes, so always checked at the call).
 */
public final class Conditions {
    private final PipelineModel model;
    private final Prover prover;
    private final List<Condition> conditions = new ArrayList<>();

    private Conditions(PipelineModel model) {
        this.model = model;
        this.prover = new Prover(model.ranks());
    }

    /** Every condition of a complete model, in declaration order: bind's first, then each step's. */
    public static List<Condition> of(PipelineModel model) {
        Conditions c = new Conditions(model);
        model.buffers().forEach(c::buffer);
        for (StepDecl s : model.steps()) {
            for (VariableElement p : s.parameters()) {
                Expr name = new Expr.Name(p.getSimpleName().toString(), Expr.Scope.PARAM);
                c.conditions.add(new Condition(Rule.R13_TYPES, Site.of(p), s, s.name() + "(): parameter `" + name
                        + "` is at least 0", Condition.Kind.AT_MOST, List.of(Expr.literal(0), name), false,
                        Verdict.UNKNOWN));
            }
            s.ops().forEach(o -> c.op(s, o));
            if (s.grouped()) {
                c.group(s);
            }
        }
        return c.conditions;
    }

    /** Every expression of the model's accessors and ops that is not a literal. */
    public static List<Expr> expressions(PipelineModel model) {
        List<Expr> expressions = new ArrayList<>();
        for (BufferDecl b : model.buffers()) {
            expressions.add(b.expression("count"));
            expressions.add(b.expression("offsetBytes"));
        }
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                o.kind().numericAttributes().forEach(a -> expressions.add(o.expression(a)));
            }
        }
        expressions.removeIf(e -> e == null || e.isConstant());
        return expressions;
    }

    /** Literal, or naming only a declared {@code ranks}: what the reader folds and the constant validators check. */
    private boolean known(Expr... operands) {
        for (Expr e : operands) {
            if (!e.isKnownWith(model.ranks())) {
                return false;
            }
        }
        return true;
    }

    private void atMost(Rule rule, Site site, StepDecl step, String what, Expr value, Expr bound) {
        if (known(value, bound)) {
            return;
        }
        StepDecl stage = stage(step, value, bound);
        List<Expr> operands = List.of(value, bound);
        // an in-place op's send and recv ask the same: check it once
        boolean repeated = conditions.stream().anyMatch(c -> c.step() == stage && c.kind() == Condition.Kind.AT_MOST
                && c.rule() == rule && c.operands().equals(operands));
        if (!repeated) {
            conditions.add(new Condition(rule, site, stage, what, Condition.Kind.AT_MOST, operands, false,
                    prover.atMost(value, bound)));
        }
    }

    /** The step when an operand names its parameters, else null: bind checks it once. */
    private static StepDecl stage(StepDecl step, Expr... operands) {
        for (Expr e : operands) {
            if (e.usesParameters()) {
                return step;
            }
        }
        return null;
    }

    private static Expr bytes(Expr elements, int size) {
        return Expr.times(elements, Expr.literal(size));
    }

    private void buffer(BufferDecl b) {
        Expr count = b.expression("count");
        String name = b.kind().annotation() + " " + b.name() + "()";
        atMost(Rule.R13_TYPES, b.site("count"), null, name + ": count is at least 1", Expr.literal(1), count);
        if (b.type().size() > 1) {
            atMost(Rule.R13_TYPES, b.site("count"), null, name + ": its bytes fit a long", count,
                    Expr.literal(Long.MAX_VALUE / b.type().size()));
        }
        if (b.kind() != BufferDecl.Kind.VIEW) {
            return;
        }
        BufferDecl parent = model.buffer(b.of()).orElseThrow();
        Expr offset = b.expression("offsetBytes");
        atMost(Rule.R7_ARENA, b.site("offsetBytes"), null, name + ": offsetBytes is at least 0", Expr.literal(0),
                offset);
        // a view of an @External stays within its declared shape (R13); one of a block or view lies inside it (R7)
        boolean ofExternal = parent.kind() == BufferDecl.Kind.EXTERNAL;
        atMost(ofExternal ? Rule.R13_TYPES : Rule.R7_ARENA, b.site("offsetBytes"), null, name + (ofExternal
                ? " lies within the declared size of external `" : " lies inside `") + parent.name() + "`",
                Expr.plus(offset, bytes(count, b.type().size())),
                bytes(parent.expression("count"), parent.type().size()));
        Expr inRoot = offsetInRoot(b);
        if (b.type().size() > 1 && !known(inRoot)) {
            conditions.add(new Condition(Rule.R7_ARENA, b.site("offsetBytes"), null, name + " starts at a multiple "
                    + "of its element size in its allocation", Condition.Kind.ALIGNED,
                    List.of(inRoot, Expr.literal(b.type().size())), false, prover.aligned(inRoot, b.type().size())));
        }
    }

    /** Bytes from the head of the buffer's root: the sum of the offsets along its chain of views. */
    private Expr offsetInRoot(BufferDecl b) {
        Expr offset = Expr.literal(0);
        for (BufferDecl v = b; v.kind() == BufferDecl.Kind.VIEW; v = model.buffer(v.of()).orElseThrow()) {
            offset = Expr.plus(v.expression("offsetBytes"), offset);
        }
        return offset;
    }

    private record Side(String role, BufferDecl buffer, Expr offset, Expr elements, Site site) {
        boolean inPlaceForm(OpDecl o) {
            return (role.equals("send") ? o.kind().sendExtent() : o.kind().recvExtent()) == OpKind.Extent.COUNT;
        }
    }

    private List<Side> sides(OpDecl o) {
        Expr count = o.expression(o.kind().countAttribute());
        List<Side> sides = new ArrayList<>(2);
        Expr ranks = new Expr.Name("ranks", Expr.Scope.RANKS);
        if (o.kind().hasSend()) {
            sides.add(new Side("send", model.buffer(o.send()).orElseThrow(),
                    o.expression(o.kind().sendOffsetAttribute()), o.kind().sendExtent() == OpKind.Extent.COUNT
                    ? count : Expr.times(count, ranks), o.site(o.kind().sendOffsetAttribute())));
        }
        if (o.kind().hasRecv()) {
            sides.add(new Side("recv", model.buffer(o.recv()).orElseThrow(),
                    o.expression(o.kind().recvOffsetAttribute()), o.kind().recvExtent() == OpKind.Extent.COUNT
                    ? count : Expr.times(count, ranks), o.site(o.kind().recvOffsetAttribute())));
        }
        return sides;
    }

    private void op(StepDecl s, OpDecl o) {
        Expr count = o.expression(o.kind().countAttribute());
        String name = s.name() + "(): " + o.kind().annotation() + " #" + o.index();
        atMost(Rule.R13_TYPES, o.countSite(), s, name + ": " + o.kind().countAttribute() + " is at least 1",
                Expr.literal(1), count);
        List<Side> sides = sides(o);
        for (Side side : sides) {
            Expr capacity = side.buffer().expression("count");
            if (known(side.offset(), count, capacity)) {
                continue; // constant, or only ranks unknown: the constant validators and bind's slices check it
            }
            atMost(Rule.R7_ARENA, side.site(), s, name + ": " + side.role() + " offset is at least 0",
                    Expr.literal(0), side.offset());
            atMost(Rule.R7_ARENA, side.site(), s, name + ": " + side.role() + " stays inside `"
                    + side.buffer().name() + "`", Expr.plus(side.offset(), side.elements()), capacity);
        }
        if (sides.size() == 2) {
            overlap(s, o, name, sides.get(0), sides.get(1));
        }
    }

    /** [start, end) in bytes from the head of the side's root allocation. */
    private Expr[] range(Side side) {
        int size = side.buffer().type().size();
        Expr start = Expr.plus(offsetInRoot(side.buffer()), bytes(side.offset(), size));
        return new Expr[] {start, Expr.plus(start, bytes(side.elements(), size))};
    }

    /**
     * The ops of a group run concurrently: a range one of them receives into overlaps no range another sends from or
     * receives into. Constant ranges are the constant validator's; these name the step's parameters or an undeclared
     * {@code ranks} (an allgather's recv reaches {@code sendCount × ranks}).
     */
    private void group(StepDecl s) {
        List<OpDecl> ops = s.ops();
        for (int j = 1; j < ops.size(); j++) {
            for (Side later : sides(ops.get(j))) {
                for (int i = 0; i < j; i++) {
                    for (Side earlier : sides(ops.get(i))) {
                        Optional<BufferDecl> root = model.root(earlier.buffer());
                        boolean writes = later.role().equals("recv") || earlier.role().equals("recv");
                        if (writes && root.isPresent() && root.get() == model.root(later.buffer()).orElse(null)) {
                            groupApart(s, ops.get(i), earlier, ops.get(j), later);
                        }
                    }
                }
            }
        }
    }

    private void groupApart(StepDecl s, OpDecl first, Side firstSide, OpDecl second, Side secondSide) {
        Expr[] a = range(firstSide);
        Expr[] b = range(secondSide);
        if (known(a[0], a[1], b[0], b[1]) || prover.atMost(a[1], b[0]) == Verdict.TRUE
                || prover.atMost(b[1], a[0]) == Verdict.TRUE) {
            return;
        }
        String what = s.name() + "(): the " + firstSide.role() + " of " + first.kind().annotation() + " #"
                + first.index() + " and the " + secondSide.role() + " of " + second.kind().annotation() + " #"
                + second.index() + ", which run concurrently in one group";
        conditions.add(new Condition(Rule.R7_ARENA, secondSide.site(), stage(s, a[0], a[1], b[0], b[1]), what,
                Condition.Kind.APART, List.of(a[0], a[1], b[0], b[1]), false, Verdict.UNKNOWN));
    }

    private void overlap(StepDecl s, OpDecl o, String name, Side send, Side recv) {
        Optional<BufferDecl> root = model.root(send.buffer());
        if (root.isEmpty() || root.get() != model.root(recv.buffer()).orElse(null)) {
            return;
        }
        Expr[] sendRange = range(send);
        Expr[] recvRange = range(recv);
        Expr sendStart = sendRange[0];
        Expr sendEnd = sendRange[1];
        Expr recvStart = recvRange[0];
        Expr recvEnd = recvRange[1];
        if (known(sendStart, sendEnd, recvStart, recvEnd)) {
            return;
        }
        boolean inPlace = send.inPlaceForm(o) && recv.inPlaceForm(o);
        if (inPlace && prover.equal(sendStart, recvStart) || prover.atMost(sendEnd, recvStart) == Verdict.TRUE
                || prover.atMost(recvEnd, sendStart) == Verdict.TRUE) {
            return;
        }
        conditions.add(new Condition(Rule.R7_ARENA, recv.site(), stage(s, sendStart, sendEnd, recvStart, recvEnd),
                name, Condition.Kind.IN_PLACE_OR_APART, List.of(sendStart, sendEnd, recvStart, recvEnd), inPlace,
                Verdict.UNKNOWN));
    }
}
