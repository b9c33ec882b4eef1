package dev.collectives.processor.validation;

import dev.collectives.annotation.Acceleration;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.Condition;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeKind;

/**
 * A pipeline that passed validation, built once, after no validator reported an error: records of values that are
 * all known (none null, nothing optional), and lists that cannot change. Beyond the declarations it holds what the
 * writer needs, worked out here: the R7 and R13 conditions left for bind and for each call, and each step's plan.
 * {@link Validation} makes it; the writer reads nothing else.
 *
 * @param acceleration in the order of {@link Acceleration}'s constants
 * @param ranks the declared world size, or 0 when not declared
 * @param graphCache graphs kept per GRAPH step with parameters
 * @param dims the {@code @Dim} accessors in declaration order
 * @param buffers the accessors in declaration order
 * @param steps the step methods in declaration order
 * @param conditions the R7 and R13 conditions on sizes and offsets that bind checks (each step holds its own)
 */
public record ValidatedPipeline(
        TypeElement type,
        Registration registration,
        List<Acceleration> acceleration,
        boolean allowLegacyRegistration,
        int ranks,
        int graphCache,
        GraphCacheOverflow graphCacheOverflow,
        List<ValidatedDim> dims,
        List<ValidatedBuffer> buffers,
        List<ValidatedStep> steps,
        List<ValidatedCondition> conditions) {
    public ValidatedPipeline {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(registration, "registration");
        Objects.requireNonNull(graphCacheOverflow, "graphCacheOverflow");
        acceleration = acceleration.stream().sorted().distinct().toList();
        dims = List.copyOf(dims);
        buffers = List.copyOf(buffers);
        steps = List.copyOf(steps);
        conditions = List.copyOf(conditions);
    }

    /**
     * The validated form of {@code model}, whose attributes {@link Validation} found known, with its plans, and of
     * {@code conditions}, none proved false.
     */
    static ValidatedPipeline of(PipelineModel model, List<Condition> conditions) {
        StepPlanner planner = new StepPlanner(model);
        List<ValidatedStep> steps = new ArrayList<>();
        for (StepDecl s : model.steps()) {
            Map<OpDecl, ValidatedOp> ops = new HashMap<>();
            s.ops().forEach(o -> ops.put(o, ValidatedOp.of(o)));
            steps.add(ValidatedStep.of(
                    s, s.ops().stream().map(ops::get).toList(), planner.plan(s, ops), conditionsOf(conditions, s)));
        }
        return new ValidatedPipeline(
                model.type(),
                model.registration(),
                List.copyOf(model.acceleration()),
                model.allowLegacyRegistration(),
                model.ranks(),
                model.graphCache(),
                model.graphCacheOverflow(),
                model.dims().stream()
                        .map(d -> new ValidatedDim(d.name(), d.kind() == TypeKind.INT))
                        .toList(),
                model.buffers().stream().map(b -> ValidatedBuffer.of(model, b)).toList(),
                steps,
                conditionsOf(conditions, null));
    }

    /** The conditions checked at each call of {@code step}, or at bind where it is null. */
    private static List<ValidatedCondition> conditionsOf(List<Condition> conditions, StepDecl step) {
        return conditions.stream()
                .filter(c -> c.step() == step)
                .map(ValidatedCondition::of)
                .toList();
    }

    /** The simple name of the class generated for it. */
    public String generatedName() {
        return PipelineModel.generatedName(type);
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

    /** The dim {@code name}, which validation found declared. */
    public ValidatedDim dim(String name) {
        for (ValidatedDim d : dims) { // a loop, not a stream: the writer asks for every expression it writes
            if (d.name().equals(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("no dim " + name);
    }

    /** Every condition, bind's and each step's. */
    public Stream<ValidatedCondition> allConditions() {
        return Stream.concat(conditions.stream(), steps.stream().flatMap(s -> s.conditions().stream()));
    }

    /** Every expression of the accessors and the calls that is not a constant, in no particular order. */
    public List<Expr> expressions() {
        List<Expr> expressions = new ArrayList<>();
        for (ValidatedBuffer b : buffers) {
            expressions.add(b.count());
            if (b.origin() instanceof ValidatedBuffer.Placement p) {
                expressions.add(p.offsetBytes());
            }
        }
        for (ValidatedStep s : steps) {
            Stream.of(s.ops(), s.plan().proven().calls(), s.plan().atBind().calls())
                    .flatMap(List::stream)
                    .forEach(o -> {
                        expressions.add(o.count());
                        o.sides().forEach(side -> expressions.add(side.offset()));
                    });
        }
        expressions.removeIf(Expr::isConstant);
        return expressions;
    }

    @Override
    public String toString() {
        return type.getQualifiedName().toString();
    }
}
