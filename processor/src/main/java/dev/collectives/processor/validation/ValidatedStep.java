package dev.collectives.processor.validation;

import dev.collectives.processor.model.CaptureDecl;
import dev.collectives.processor.model.StepDecl;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * A step method of a validated pipeline.
 *
 * @param parameters the values given at each call, in order
 * @param captured the {@code @Capture} tuples a GRAPH step captures at bind: the cartesian product of their values,
 *     in parameter order, the last varying fastest; empty without {@code @Capture}
 * @param ops its declared ops, in order
 * @param grouped whether one group surrounds its ops: asked for, or needed by point-to-point ops
 * @param plan how its ops are issued
 * @param conditions what each call checks of the sizes and offsets its parameters give
 */
public record ValidatedStep(
        String name,
        List<Parameter> parameters,
        List<List<Long>> captured,
        List<ValidatedOp> ops,
        boolean grouped,
        StepPlan plan,
        List<ValidatedCondition> conditions) {
    /** A parameter of a step: its name and declared type ({@code int} or {@code long}). */
    public record Parameter(String name, TypeMirror type) {
        public Parameter {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }

        public boolean isInt() {
            return type.getKind() == TypeKind.INT;
        }
    }

    public ValidatedStep {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(plan, "plan");
        parameters = List.copyOf(parameters);
        captured = captured.stream().map(List::copyOf).toList();
        ops = List.copyOf(ops);
        conditions = List.copyOf(conditions);
    }

    static ValidatedStep of(StepDecl s, List<ValidatedOp> ops, StepPlan plan, List<ValidatedCondition> conditions) {
        return new ValidatedStep(
                s.name(),
                s.parameters().stream()
                        .map(p -> new Parameter(p.getSimpleName().toString(), p.asType()))
                        .toList(),
                captured(s),
                ops,
                s.grouped(),
                plan,
                conditions);
    }

    /** The cartesian product of the step's {@code @Capture} values, in parameter order, the last varying fastest. */
    private static List<List<Long>> captured(StepDecl s) {
        List<List<Long>> tuples = new ArrayList<>();
        if (s.captures().isEmpty()) {
            return tuples;
        }
        tuples.add(List.of());
        for (var p : s.parameters()) {
            List<Long> values = s.captures().stream()
                    .filter(c -> p.getSimpleName().contentEquals(c.param()))
                    .findFirst()
                    .map(CaptureDecl::values)
                    .orElseThrow();
            List<List<Long>> longer = new ArrayList<>();
            for (List<Long> t : tuples) {
                for (Long v : values) {
                    List<Long> next = new ArrayList<>(t);
                    next.add(v);
                    longer.add(next);
                }
            }
            tuples = longer;
        }
        return tuples;
    }

    /** Whether the step takes values at each call. */
    public boolean hasParameters() {
        return !parameters.isEmpty();
    }
}
