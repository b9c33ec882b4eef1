package dev.collectives.processor.model;

import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.expr.Prover;
import dev.collectives.processor.expr.Verdict;
import dev.collectives.rules.Message;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.VariableElement;

/**
 * The conditions R7 and R13 put on a pipeline's sizes and offsets, each with what the {@link Prover} says of it:
 * views and ops lie inside their buffers, views are aligned to their element size, an op's send and recv coincide or
 * are apart, the ops of a group are apart (R7), whether the values are constants or expressions; every {@code /} of an
 * expression leaves no remainder, counts are at least 1 and their bytes fit a long, and step parameters are at least
 * 0 (R13, where an expression is not known at compile time: the constant ones are R13's validator's). A condition
 * proved for every value is left out.
 */
public final class Conditions {
    private final PipelineModel model;
    private final Prover prover;
    private final SideRanges ranges;
    private final List<Condition> conditions = new ArrayList<>();

    private Conditions(PipelineModel model) {
        this.model = model;
        this.prover = new Prover(model.ranks());
        this.ranges = new SideRanges(model, prover);
    }

    /** Every condition of a complete model, in declaration order: bind's first, then each step's. */
    public static List<Condition> of(PipelineModel model) {
        Conditions c = new Conditions(model);
        model.buffers().forEach(c::buffer);
        for (StepDecl s : model.steps()) {
            for (VariableElement p : s.parameters()) {
                c.parameter(s, p);
            }
            s.ops().forEach(o -> c.op(s, o));
            if (s.grouped()) {
                c.group(s);
            }
        }
        return c.conditions;
    }

    /** Literal, or naming only a declared {@code ranks}: what the reader folds to a value. */
    private boolean known(Expr... operands) {
        for (Expr e : operands) {
            if (!e.isKnownWith(model.ranks())) {
                return false;
            }
        }
        return true;
    }

    /** A value for messages: the number when it is known (also past a long), else the expression. */
    private Object shown(Expr e) {
        Long value = prover.constant(e);
        if (value != null) {
            return value;
        }
        BigInteger exact = prover.exact(e);
        return exact != null ? exact : e;
    }

    /** Keeps what is not proved, once: an in-place op's send and recv ask the same. */
    private void add(Condition condition) {
        boolean repeated = conditions.stream()
                .anyMatch(c -> c.step() == condition.step()
                        && c.kind() == condition.kind()
                        && c.rule() == condition.rule()
                        && c.operands().equals(condition.operands()));
        if (condition.verdict() != Verdict.TRUE && !repeated) {
            conditions.add(condition);
        }
    }

    private Condition atMost(
            Message failure, List<Object> arguments, Site site, StepDecl step, String what, Expr value, Expr bound) {
        return new Condition(
                failure,
                arguments,
                site,
                stage(step, value, bound),
                what,
                Condition.Kind.AT_MOST,
                List.of(value, bound),
                false,
                prover.atMost(value, bound));
    }

    /** R13 where an operand is not known: the known ones are R13's validator's, with messages of their own. */
    private void unknownAtMost(Site site, StepDecl step, String what, Expr value, Expr bound) {
        if (!known(value, bound)) {
            add(atMost(
                    Message.R13_HOLDS_FOR_NO_VALUE,
                    List.of(Condition.atMostText(what, value, bound)),
                    site,
                    step,
                    what,
                    value,
                    bound));
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

    /** Every proof assumes parameters are at least 0, so nothing proves it: each call checks it. */
    private void parameter(StepDecl s, VariableElement p) {
        Expr name = new Expr.Name(p.getSimpleName().toString(), Expr.Scope.PARAM);
        Expr zero = Expr.literal(0);
        String what = s.name() + "(): parameter `" + name + "` is at least 0";
        add(new Condition(
                Message.R13_HOLDS_FOR_NO_VALUE,
                List.of(Condition.atMostText(what, zero, name)),
                Site.of(p),
                s,
                what,
                Condition.Kind.AT_MOST,
                List.of(zero, name),
                false,
                Verdict.UNKNOWN));
    }

    /**
     * Each {@code /} of the attribute's expression leaves no remainder: {@code parameters / ranks} would otherwise
     * drop the tail of a size silently ({@code floorDiv} drops it on purpose). Added before the conditions that use
     * the quotient, so that a check meets the remainder first.
     */
    private void divisions(Annotated target, String attribute, StepDecl step, String name) {
        Expr e = target.expression(attribute);
        if (e == null) {
            return;
        }
        String where = name + ": " + attribute + "Expr = \"" + e + "\"";
        for (Expr.Binary d : e.divisions()) {
            Expr dividend = d.left();
            Expr divisor = d.right();
            add(new Condition(
                    Message.R13_REMAINDER,
                    List.of(
                            where,
                            d,
                            shown(dividend),
                            shown(divisor),
                            shown(new Expr.Binary('%', dividend, divisor)),
                            new Expr.FloorDiv(dividend, divisor)),
                    target.site(attribute),
                    stage(step, d),
                    where,
                    Condition.Kind.DIVIDES,
                    List.of(dividend, divisor),
                    false,
                    prover.divides(dividend, divisor)));
        }
    }

    private void buffer(BufferDecl b) {
        Expr count = b.expression("count");
        int size = b.type().size();
        String name = b.kind().annotation() + " " + b.name() + "()";
        divisions(b, "count", null, name);
        divisions(b, "offsetBytes", null, name);
        unknownAtMost(b.site("count"), null, name + ": count is at least 1", Expr.literal(1), count);
        if (size > 1) {
            unknownAtMost(
                    b.site("count"), null, name + ": its bytes fit a long", count, Expr.literal(Long.MAX_VALUE / size));
        }
        if (b.kind() != BufferDecl.Kind.VIEW) {
            return;
        }
        BufferDecl parent = model.buffer(b.of()).orElseThrow();
        Expr offset = b.expression("offsetBytes");
        Site site = b.site("offsetBytes");
        Condition afterHead = atMost(
                Message.R7_VIEW_BEFORE_HEAD,
                List.of(b.name(), shown(offset), parent.name()),
                site,
                null,
                name + ": offsetBytes is at least 0",
                Expr.literal(0),
                offset);
        add(afterHead);
        if (afterHead.verdict() == Verdict.FALSE) {
            return; // where it ends and how it is aligned say nothing more
        }
        Expr end = Expr.plus(offset, SideRanges.bytes(count, size));
        Expr parentBytes =
                SideRanges.bytes(parent.expression("count"), parent.type().size());
        if (parent.kind() == BufferDecl.Kind.EXTERNAL) {
            // a view of an @External stays within its declared shape: all bind requires of the buffer it is given
            unknownAtMost(
                    site,
                    null,
                    name + " lies within the declared size of external `" + parent.name() + "`",
                    end,
                    parentBytes);
        } else {
            add(atMost(
                    Message.R7_VIEW_PAST_END,
                    List.of(b.name(), parent.name(), shown(offset), shown(end), shown(parentBytes)),
                    site,
                    null,
                    name + " lies inside `" + parent.name() + "`",
                    end,
                    parentBytes));
        }
        Expr inRoot = ranges.offsetInRoot(b);
        if (size > 1) {
            add(new Condition(
                    Message.R7_VIEW_MISALIGNED,
                    List.of(b.name(), shown(inRoot), b.type(), size, size),
                    site,
                    null,
                    name + " starts at a multiple of its element size in its allocation",
                    Condition.Kind.ALIGNED,
                    List.of(inRoot, Expr.literal(size)),
                    false,
                    prover.aligned(inRoot, size)));
        }
    }

    private void op(StepDecl s, OpDecl o) {
        Expr count = o.expression(o.kind().countAttribute());
        String name = s.name() + "(): " + o.kind().annotation() + " " + o.ordinal();
        o.kind().numericAttributes().forEach(a -> divisions(o, a, s, name));
        unknownAtMost(
                o.countSite(), s, name + ": " + o.kind().countAttribute() + " is at least 1", Expr.literal(1), count);
        for (OpSide side : o.sides()) {
            Condition afterHead = atMost(
                    Message.R7_NEGATIVE_OFFSET,
                    List.of(side.label(), shown(side.offset()), side.buffer().name()),
                    side.offsetSite(),
                    s,
                    name + ": " + side.role().word() + " offset is at least 0",
                    Expr.literal(0),
                    side.offset());
            add(afterHead);
            if (afterHead.verdict() != Verdict.FALSE) {
                inside(s, name, side);
            }
        }
        if (o.sides().size() == 2) {
            overlap(s, o, name, o.sides().get(0), o.sides().get(1));
        }
    }

    private void inside(StepDecl s, String name, OpSide side) {
        Expr offset = side.offset();
        Expr count = side.op().expression(side.op().kind().countAttribute());
        Expr capacity = side.buffer().expression("count");
        Expr end = Expr.plus(offset, side.elements());
        // from the head, the count is what reaches too far
        Site site = Expr.literal(0).equals(offset) ? side.op().countSite() : side.offsetSite();
        Condition inside = atMost(
                Message.R7_PAST_BUFFER,
                List.of(side.label(), side.buffer().name(), shown(offset), shown(end), shown(capacity)),
                site,
                s,
                name + ": " + side.role().word() + " stays inside `"
                        + side.buffer().name() + "`",
                end,
                capacity);
        // with offset, count and capacity known, only an undeclared ranks can leave it open: bind's slices check it
        if (inside.verdict() == Verdict.FALSE || !known(offset, count, capacity)) {
            add(inside);
        }
    }

    /**
     * The ops of a group run concurrently: a range one of them receives into overlaps no range another sends from or
     * receives into (a send posted beside a recv into the same bytes reads whatever the recv has written so far).
     */
    private void group(StepDecl s) {
        List<OpDecl> ops = s.ops();
        for (int j = 1; j < ops.size(); j++) {
            for (OpSide later : ops.get(j).sides()) {
                for (int i = 0; i < j; i++) {
                    for (OpSide earlier : ops.get(i).sides()) {
                        boolean writes = later.role() == OpSide.Role.RECV || earlier.role() == OpSide.Role.RECV;
                        if (writes && ranges.sameRoot(earlier, later)) {
                            groupApart(s, earlier, later);
                        }
                    }
                }
            }
        }
    }

    private void groupApart(StepDecl s, OpSide first, OpSide second) {
        Expr[] a = ranges.range(first);
        Expr[] b = ranges.range(second);
        String what = s.name() + "(): the " + first.role().word() + " of "
                + first.op().kind().annotation() + " "
                + first.op().ordinal() + " and the " + second.role().word() + " of "
                + second.op().kind().annotation() + " " + second.op().ordinal()
                + ", which run concurrently in one group";
        add(new Condition(
                Message.R7_GROUP_APART,
                List.of(first.label(), second.label(), shown(a[0]), shown(a[1]), shown(b[0]), shown(b[1])),
                second.site(),
                stage(s, a[0], a[1], b[0], b[1]),
                what,
                Condition.Kind.APART,
                List.of(a[0], a[1], b[0], b[1]),
                false,
                ranges.apart(a, b)));
    }

    /**
     * Send and recv start at the same byte (in place) or are apart. Allgather, reducescatter and alltoall have no
     * in-place form at the same offsets on every rank, so theirs are apart.
     */
    private void overlap(StepDecl s, OpDecl o, String name, OpSide send, OpSide recv) {
        if (!ranges.sameRoot(send, recv)) {
            return;
        }
        Expr[] sendRange = ranges.range(send);
        Expr[] recvRange = ranges.range(recv);
        boolean inPlace = send.inPlaceForm() && recv.inPlaceForm();
        Verdict verdict =
                inPlace && prover.equal(sendRange[0], recvRange[0]) ? Verdict.TRUE : ranges.apart(sendRange, recvRange);
        boolean startsDiffer = ranges.below(sendRange[0], recvRange[0]) || ranges.below(recvRange[0], sendRange[0]);
        if (verdict == Verdict.FALSE && inPlace && !startsDiffer) {
            verdict = Verdict.UNKNOWN; // they overlap, and may start at the same byte
        }
        add(new Condition(
                inPlace ? Message.R7_IN_PLACE_OR_APART : Message.R7_NOT_IN_PLACE,
                List.of(o.label(), shown(sendRange[0]), shown(sendRange[1]), shown(recvRange[0]), shown(recvRange[1])),
                recv.site(),
                stage(s, sendRange[0], sendRange[1], recvRange[0], recvRange[1]),
                name,
                Condition.Kind.IN_PLACE_OR_APART,
                List.of(sendRange[0], sendRange[1], recvRange[0], recvRange[1]),
                inPlace,
                verdict));
    }
}
