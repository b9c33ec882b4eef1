package dev.collectives.processor.validation;

import dev.collectives.annotation.OpKind;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.expr.Prover;
import dev.collectives.processor.expr.Verdict;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpSide;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.SideRanges;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.processor.validation.StepPlan.Batch;
import dev.collectives.processor.validation.StepPlan.BindTest;
import dev.collectives.processor.validation.StepPlan.Issue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Plans a step ({@link StepPlan}). Fusion: consecutive ops of a kind that is {@link OpKind#elementwise() elementwise}, with one type,
 * reduce op and root, the same send buffer and the same recv buffer, each op's ranges starting where the previous
 * op's end, become one call over the union, provided that the union's send and recv are in place or apart (then no
 * op reads what another writes). The {@link Prover} proves that for every value; where only the dims decide it, bind
 * does; where the step's parameters do, the ops stay apart. Aggregation: consecutive calls none of which writes a
 * byte that another reads or writes, proven for every value, are issued in one group. The planner decides on the
 * declarations as read and records its decisions as validated calls: a fused call is {@link ValidatedOp#fused}.
 */
final class StepPlanner {

    private static final String NOT_AT_THESE_DIMS = "they fuse only for some values of the dims, and bind found "
            + "that the dims bound do not fuse every such run of this step";

    private final PipelineModel model;
    private final Prover prover;
    private final SideRanges ranges;

    /** A planner for the steps of a complete, valid {@code model}. */
    StepPlanner(PipelineModel model) {
        this.model = model;
        this.prover = new Prover(model.ranks());
        this.ranges = new SideRanges(model, prover);
    }

    /** The plan of {@code s}, whose declared ops {@code validated} holds. */
    StepPlan plan(StepDecl s, Map<OpDecl, ValidatedOp> validated) {
        String off = !model.plansSteps()
                ? "plan = false"
                : s.writtenOrder()
                        ? "@WrittenOrder"
                        : s.orderUnknown() ? "this compiler does not expose the order written" : null;
        if (off != null) {
            List<ValidatedOp> ops = s.ops().stream().map(validated::get).toList();
            List<Batch> batches = s.grouped()
                    ? List.of(new Batch(ops, true, false))
                    : ops.stream().map(o -> new Batch(List.of(o), false, false)).toList();
            String how = s.grouped() ? "the ops as written, in one group" : "the ops one by one, as written";
            return StepPlan.fixed(new Issue(batches, List.of(how + " (" + off + ")")));
        }
        List<BindTest> tests = new ArrayList<>();
        Issue atBind = issue(s, validated, tests);
        return tests.isEmpty() ? StepPlan.fixed(atBind) : new StepPlan(issue(s, validated, null), atBind, tests);
    }

    /** The step's calls and batches; {@code tests} null takes only what is proved, else gathers what bind checks. */
    private Issue issue(StepDecl s, Map<OpDecl, ValidatedOp> validated, List<BindTest> tests) {
        List<String> notes = new ArrayList<>();
        List<ValidatedOp> calls = new ArrayList<>();
        Run run = null;
        for (OpDecl o : s.ops()) {
            if (run != null) {
                Join join = join(run.ops, o);
                if (join.verdict == Verdict.TRUE || join.verdict == Verdict.UNKNOWN && tests != null) {
                    run.add(o, join, tests);
                    continue;
                }
                calls.add(run.close(validated, notes, tests));
                if (join.why != null || join.verdict == Verdict.UNKNOWN) {
                    notes.add(o.ordinal() + " not fused with " + run.last().ordinal() + ": "
                            + (join.verdict == Verdict.UNKNOWN ? NOT_AT_THESE_DIMS : join.why));
                }
            }
            run = new Run(o);
        }
        if (run != null) {
            calls.add(run.close(validated, notes, tests));
        }
        List<Batch> batches;
        if (s.grouped()) {
            batches = List.of(new Batch(calls, true, false));
            notes.add("in one group, as " + (s.explicitlyGrouped() ? "@Grouped asks" : "its sends and receives need"));
        } else {
            batches = aggregated(calls, notes);
        }
        if (notes.isEmpty()) {
            notes.add("the ops one by one, as written: none fuses, and none is proven independent of the one before");
        }
        return new Issue(batches, notes);
    }

    /** Consecutive ops being fused. */
    private final class Run {
        final List<OpDecl> ops = new ArrayList<>();
        boolean atBind;

        Run(OpDecl first) {
            ops.add(first);
        }

        OpDecl last() {
            return ops.get(ops.size() - 1);
        }

        void add(OpDecl o, Join join, List<BindTest> tests) {
            ops.add(o);
            if (join.verdict == Verdict.UNKNOWN) {
                atBind = true;
                tests.addAll(join.tests);
            }
        }

        /** The call that serves the run, noted when fused; bind tests the union's sides where it decides. */
        ValidatedOp close(Map<OpDecl, ValidatedOp> validated, List<String> notes, List<BindTest> tests) {
            if (ops.size() == 1) {
                return validated.get(ops.get(0));
            }
            OpDecl first = ops.get(0);
            Union union = union(first, last());
            if (union.verdict == Verdict.UNKNOWN) {
                tests.add(union.test);
            }
            notes.add("fused " + ops.size() + " " + first.kind().method().toLowerCase(Locale.ROOT) + "s into one ("
                    + first.ordinal() + "-" + last().ordinal() + "): send and recv ranges adjacent"
                    + (atBind ? " with the dims bound" : "") + (union.inPlace ? ", in place" : ""));
            return ValidatedOp.fused(ops.stream().map(validated::get).toList());
        }
    }

    /** Whether {@code next} fuses with {@code run}: {@link Verdict#UNKNOWN} when bind decides, with its tests. */
    private record Join(Verdict verdict, String why, List<BindTest> tests) {
        static final Join UNLIKE = new Join(Verdict.FALSE, null, List.of());

        static Join no(String why) {
            return new Join(Verdict.FALSE, why, List.of());
        }
    }

    private Join join(List<OpDecl> run, OpDecl next) {
        OpDecl last = run.get(run.size() - 1);
        if (last.kind() != next.kind() || !next.kind().elementwise()) {
            return Join.UNLIKE;
        }
        String differs = differs("types", type(last), type(next));
        differs = differs != null ? differs : differs("reduce ops", last.op(), next.op());
        differs = differs != null ? differs : differs("roots", last.root(), next.root());
        differs = differs != null ? differs : differs("send buffers", last.send(), next.send());
        differs = differs != null ? differs : differs("recv buffers", last.recv(), next.recv());
        if (differs != null) {
            return Join.no(differs);
        }
        List<BindTest> tests = new ArrayList<>();
        Expr count = last.expression(last.kind().countAttribute());
        for (int side = 0; side < 2; side++) {
            String word = last.sides().get(side).role().word();
            Expr end = Expr.plus(last.sides().get(side).offset(), count);
            Expr start = next.sides().get(side).offset();
            if (prover.equal(end, start)) {
                continue;
            }
            String where = word + " ranges not adjacent: " + last.ordinal() + " ends at element " + shown(end) + ", "
                    + next.ordinal() + " starts at " + shown(start);
            if (ranges.below(end, start) || ranges.below(start, end)) {
                return Join.no(where);
            }
            if (end.usesParameters() || start.usesParameters()) {
                return Join.no(where + ", which is not proven for every value of the step's parameters");
            }
            tests.add(new BindTest(BindTest.Kind.EQUAL, List.of(end, start)));
        }
        Union union = union(run.get(0), next);
        if (union.verdict == Verdict.FALSE) {
            return Join.no(union.why);
        }
        return new Join(tests.isEmpty() && union.verdict == Verdict.TRUE ? Verdict.TRUE : Verdict.UNKNOWN, null, tests);
    }

    /** "their types differ (FLOAT32, INT32)", or null when they do not. */
    private static String differs(String what, Object a, Object b) {
        return Objects.equals(a, b) ? null : "their " + what + " differ (" + a + ", " + b + ")";
    }

    /** Whether one call from {@code first}'s starts to {@code last}'s ends has its send and recv in place or apart. */
    private record Union(Verdict verdict, String why, BindTest test, boolean inPlace) {}

    private Union union(OpDecl first, OpDecl last) {
        OpSide send = first.sides().get(0);
        OpSide recv = first.sides().get(1);
        if (ranges.separateAllocations(send, recv)) {
            return new Union(Verdict.TRUE, null, null, false);
        }
        if (!ranges.sameRoot(send, recv)) {
            return new Union(
                    Verdict.FALSE,
                    "send `" + send.buffer().name() + "` and recv `"
                            + recv.buffer().name() + "` are externals, which may be one allocation",
                    null,
                    false);
        }
        Expr[] sendRange = {ranges.range(send)[0], ranges.range(last.sides().get(0))[1]};
        Expr[] recvRange = {ranges.range(recv)[0], ranges.range(last.sides().get(1))[1]};
        if (prover.equal(sendRange[0], recvRange[0])) {
            return new Union(Verdict.TRUE, null, null, true);
        }
        Verdict apart = ranges.apart(sendRange, recvRange);
        if (apart == Verdict.TRUE) {
            return new Union(Verdict.TRUE, null, null, false);
        }
        boolean startsDiffer = ranges.below(sendRange[0], recvRange[0]) || ranges.below(recvRange[0], sendRange[0]);
        if (apart == Verdict.FALSE && startsDiffer) {
            return new Union(
                    Verdict.FALSE,
                    "one call over both would read bytes that it writes (its send and recv " + "ranges would overlap)",
                    null,
                    false);
        }
        List<Expr> operands = List.of(sendRange[0], sendRange[1], recvRange[0], recvRange[1]);
        if (operands.stream().anyMatch(Expr::usesParameters)) {
            return new Union(
                    Verdict.FALSE,
                    "one call over both has send and recv ranges that are not proven in "
                            + "place or apart for every value of the step's parameters",
                    null,
                    false);
        }
        return new Union(Verdict.UNKNOWN, null, new BindTest(BindTest.Kind.IN_PLACE_OR_APART, operands), false);
    }

    /** Consecutive calls proven independent, each run of them one batch; a batch of more than one is grouped. */
    private List<Batch> aggregated(List<ValidatedOp> calls, List<String> notes) {
        List<Batch> batches = new ArrayList<>();
        List<ValidatedOp> batch = new ArrayList<>();
        for (ValidatedOp call : calls) {
            if (!batch.stream().allMatch(earlier -> independent(earlier, call))) {
                batches.add(batch(batch, notes));
                batch = new ArrayList<>();
            }
            batch.add(call);
        }
        batches.add(batch(batch, notes));
        return batches;
    }

    private static Batch batch(List<ValidatedOp> calls, List<String> notes) {
        boolean grouped = calls.size() > 1;
        if (grouped) {
            List<String> numbers = calls.stream().map(ValidatedOp::number).toList();
            notes.add("issued " + String.join(", ", numbers.subList(0, numbers.size() - 1)) + " and "
                    + numbers.get(numbers.size() - 1) + " in one group: none writes a byte that another reads or "
                    + "writes");
        }
        return new Batch(calls, grouped, grouped);
    }

    /** No range that one call writes is read or written by the other, for every value. */
    private boolean independent(ValidatedOp a, ValidatedOp b) {
        for (ValidatedOp.Side x : a.sides()) {
            for (ValidatedOp.Side y : b.sides()) {
                boolean writes = x.role() == OpSide.Role.RECV || y.role() == OpSide.Role.RECV;
                BufferDecl xBuffer = buffer(x);
                BufferDecl yBuffer = buffer(y);
                boolean apart = ranges.separateAllocations(xBuffer, yBuffer)
                        || ranges.sameRoot(xBuffer, yBuffer) && ranges.apart(range(a, x), range(b, y)) == Verdict.TRUE;
                if (writes && !apart) {
                    return false;
                }
            }
        }
        return true;
    }

    private BufferDecl buffer(ValidatedOp.Side side) {
        return model.buffer(side.buffer()).orElseThrow();
    }

    /** The bytes a call's side covers: a fused call's, the union of its ops'. */
    private Expr[] range(ValidatedOp call, ValidatedOp.Side side) {
        return ranges.range(buffer(side), side.offset(), call.elements(side.role()));
    }

    private static Object type(OpDecl o) {
        return o.sides().get(0).buffer().type();
    }

    /** A value for notes: the number when it is known, else the expression. */
    private Object shown(Expr e) {
        Long value = prover.constant(e);
        return value != null ? value : e;
    }
}
