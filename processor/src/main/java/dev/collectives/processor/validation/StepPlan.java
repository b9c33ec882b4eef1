package dev.collectives.processor.validation;

import dev.collectives.processor.expr.Expr;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * How a step's ops are issued: the calls (each a declared op, or several fused into one) in order, in batches that
 * are one group each where grouped. Where a fusion holds only for some values of the dims, bind decides: it runs
 * {@link #atBind()} when every {@link #bindTests() test} holds, else {@link #proven()}; the dims are the same on
 * every rank, so every rank decides alike. Where bind has nothing to test, both plans are the same.
 *
 * @param proven the plan of what the processor proved for every value
 * @param atBind the plan bind takes when every test holds: with the fusions that bind finds to hold
 * @param bindTests what bind checks to take {@code atBind}; empty when it is {@code proven}
 */
public record StepPlan(Issue proven, Issue atBind, List<BindTest> bindTests) {
    /** Calls issued together: in one group when {@code grouped}, which {@code aggregated} says the plan made. */
    public record Batch(List<ValidatedOp> calls, boolean grouped, boolean aggregated) {
        public Batch {
            calls = List.copyOf(calls);
        }
    }

    /** One way to issue the step, and what {@code describe()} says of it. */
    public record Issue(List<Batch> batches, List<String> notes) {
        public Issue {
            batches = List.copyOf(batches);
            notes = List.copyOf(notes);
        }

        /** Every call, in order. */
        public List<ValidatedOp> calls() {
            return batches.stream().flatMap(b -> b.calls().stream()).toList();
        }

        /** Whether it issues other than the ops one by one: a fused call, or a group the plan made. */
        boolean changesWrittenOrder() {
            return batches.stream()
                    .anyMatch(b -> b.aggregated() || b.calls().stream().anyMatch(ValidatedOp::isFused));
        }

        /** For the fingerprint: "#1-#16; group(#17, #18)". */
        String signature() {
            return batches.stream()
                    .map(b -> {
                        String calls =
                                b.calls().stream().map(ValidatedOp::number).collect(Collectors.joining(", "));
                        return b.grouped() ? "group(" + calls + ")" : calls;
                    })
                    .collect(Collectors.joining("; "));
        }
    }

    /**
     * A condition on sizes that bind checks before it takes {@link #atBind()}: {@code operands[0] == operands[1]}
     * ({@link Kind#EQUAL}: one op's range ends where the next one's starts), or send bytes {@code [operands[0],
     * operands[1])} and recv bytes {@code [operands[2], operands[3])} of one allocation starting together or apart
     * ({@link Kind#IN_PLACE_OR_APART}: the fused call's sides).
     */
    public record BindTest(Kind kind, List<Expr> operands) {
        /** The shape of the comparison. */
        public enum Kind {
            EQUAL,
            IN_PLACE_OR_APART
        }

        public BindTest {
            Objects.requireNonNull(kind, "kind");
            operands = List.copyOf(operands);
        }
    }

    public StepPlan {
        Objects.requireNonNull(proven, "proven");
        Objects.requireNonNull(atBind, "atBind");
        bindTests = List.copyOf(new LinkedHashSet<>(bindTests)); // a send and its recv may ask the same
    }

    /** A plan that bind does not choose. */
    static StepPlan fixed(Issue issue) {
        return new StepPlan(issue, issue, List.of());
    }

    public boolean decidedAtBind() {
        return !bindTests.isEmpty();
    }

    /** Whether the step is issued other than as written, however bind decides. */
    public boolean changesWrittenOrder() {
        return proven.changesWrittenOrder() || atBind.changesWrittenOrder();
    }

    /** The plan as the fingerprint records it, so that ranks that planned a step differently fail at bind. */
    public String signature() {
        return decidedAtBind()
                ? atBind.signature() + " if adjacent at bind, else " + proven.signature()
                : proven.signature();
    }
}
