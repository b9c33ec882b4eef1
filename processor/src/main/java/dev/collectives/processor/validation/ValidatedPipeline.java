package dev.collectives.processor.validation;

import dev.collectives.annotation.Acceleration;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.Condition;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.processor.model.StepPlan;
import dev.collectives.processor.model.StepPlanner;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.lang.model.element.TypeElement;

/**
 * A pipeline that passed validation, built once, after no validator reported an error: its attributes as values
 * that are all known (none null), and what the writer needs beyond the declarations, worked out here: the R7 and
 * R13 conditions left for bind and for each call, and each step's plan. Its sets, lists and maps cannot change.
 * {@link Validation} makes it; the writer takes nothing else.
 *
 * @param model the declarations as read, each attribute the writer reads known
 * @param acceleration in the order of {@link Acceleration}'s constants
 * @param ranks the declared world size, or 0 when not declared
 * @param graphCache graphs kept per GRAPH step with parameters
 * @param buffers the accessors in declaration order
 * @param ops the values of each declared op and of each call the plans make
 * @param conditions the R7 and R13 conditions on sizes and offsets, none proved false: bind's first, then each
 *     step's
 * @param stepPlans how each step is issued
 */
public record ValidatedPipeline(
        PipelineModel model,
        TypeElement type,
        Registration registration,
        Set<Acceleration> acceleration,
        boolean allowLegacyRegistration,
        int ranks,
        int graphCache,
        GraphCacheOverflow graphCacheOverflow,
        List<ValidatedBuffer> buffers,
        Map<OpDecl, ValidatedOp> ops,
        List<Condition> conditions,
        Map<StepDecl, StepPlan> stepPlans) {
    public ValidatedPipeline {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(registration, "registration");
        Objects.requireNonNull(graphCacheOverflow, "graphCacheOverflow");
        EnumSet<Acceleration> ordered = EnumSet.noneOf(Acceleration.class);
        ordered.addAll(acceleration);
        acceleration = Collections.unmodifiableSet(ordered);
        buffers = List.copyOf(buffers);
        ops = Map.copyOf(ops);
        conditions = List.copyOf(conditions);
        stepPlans = Map.copyOf(stepPlans);
    }

    /** The validated form of {@code model}, whose attributes {@link Validation} found known, with its plans. */
    static ValidatedPipeline of(PipelineModel model, List<Condition> conditions) {
        StepPlanner planner = new StepPlanner(model);
        Map<StepDecl, StepPlan> plans = new LinkedHashMap<>();
        Map<OpDecl, ValidatedOp> ops = new HashMap<>();
        for (StepDecl s : model.steps()) {
            StepPlan plan = planner.plan(s);
            plans.put(s, plan);
            s.ops().forEach(o -> ops.put(o, ValidatedOp.of(o)));
            plan.proven().calls().forEach(o -> ops.putIfAbsent(o, ValidatedOp.of(o)));
            if (plan.decidedAtBind()) {
                plan.atBind().calls().forEach(o -> ops.putIfAbsent(o, ValidatedOp.of(o)));
            }
        }
        return new ValidatedPipeline(
                model,
                model.type(),
                model.registration(),
                model.acceleration(),
                model.allowLegacyRegistration(),
                model.ranks(),
                model.graphCache(),
                model.graphCacheOverflow(),
                model.buffers().stream().map(b -> ValidatedBuffer.of(model, b)).toList(),
                ops,
                conditions,
                plans);
    }

    /** Whether memory gets registered: GRAPH and LOCAL. */
    public boolean registers() {
        return registration == Registration.GRAPH || registration == Registration.LOCAL;
    }

    public boolean mtlinkSharp() {
        return acceleration.contains(Acceleration.MTLINK_SHARP);
    }

    public boolean ibSharp() {
        return acceleration.contains(Acceleration.IB_SHARP);
    }

    /** The accessor {@code name}, which validation found declared. */
    public ValidatedBuffer buffer(String name) {
        for (ValidatedBuffer b : buffers) { // a loop, not a stream: the writer asks for every op's buffers
            if (b.name().equals(name)) {
                return b;
            }
        }
        throw new IllegalArgumentException("no accessor " + name);
    }

    /** The values of {@code call}, a declared op or a call of a step's plan. */
    public ValidatedOp op(OpDecl call) {
        return Objects.requireNonNull(ops.get(call), call::toString);
    }

    /** Every expression of the accessors and the calls that is not a constant, in no particular order. */
    public List<Expr> expressions() {
        List<Expr> expressions = new ArrayList<>();
        for (ValidatedBuffer b : buffers) {
            expressions.add(b.count());
            b.placement().ifPresent(p -> expressions.add(p.offsetBytes()));
        }
        for (ValidatedOp o : ops.values()) {
            expressions.add(o.count());
            o.send().ifPresent(side -> expressions.add(side.offset()));
            o.recv().ifPresent(side -> expressions.add(side.offset()));
        }
        expressions.removeIf(Expr::isConstant);
        return expressions;
    }

    /** How {@code step} is issued: its calls, fused and grouped where the plan proves it safe. */
    public StepPlan stepPlan(StepDecl step) {
        return stepPlans.get(step);
    }

    @Override
    public String toString() {
        return model.toString();
    }
}
