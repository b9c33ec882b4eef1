package dev.collectives.processor.model;

import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.expr.Verdict;
import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;
import java.util.List;

/**
 * A rule's condition on a pipeline's sizes and offsets: {@code operands[0] <= operands[1]} ({@link Kind#AT_MOST}),
 * {@code operands[0] % operands[1] == 0} ({@link Kind#ALIGNED} of an offset, {@link Kind#DIVIDES} of a division's
 * dividend and divisor), send bytes {@code [operands[0], operands[1])} and
 * recv bytes {@code [operands[2], operands[3])} coinciding (when {@code inPlace}) or apart
 * ({@link Kind#IN_PLACE_OR_APART}), or the bytes of two ops of a group, {@code [operands[0], operands[1])} and
 * {@code [operands[2], operands[3])}, apart ({@link Kind#APART}). What the {@link dev.collectives.processor.expr.Prover}
 * proves false is {@code failure}, a compile error; what it cannot prove is checked at bind when {@code step} is
 * null, else at each call of {@code step}.
 */
public record Condition(
        Message failure,
        List<Object> failureArguments,
        Site site,
        StepDecl step,
        String what,
        Kind kind,
        List<Expr> operands,
        boolean inPlace,
        Verdict verdict) {
    /** The shape of the comparison. */
    public enum Kind {
        AT_MOST,
        ALIGNED,
        DIVIDES,
        IN_PLACE_OR_APART,
        APART
    }

    public Rule rule() {
        return failure.rule();
    }

    /** {@code what} and the comparison, as messages show it: "... : offset + n <= elements". */
    public String text() {
        switch (kind) {
            case AT_MOST:
                return atMostText(what, operands.get(0), operands.get(1));
            case ALIGNED:
            case DIVIDES:
                return what + ": " + operands.get(0) + " is a multiple of " + operands.get(1);
            case APART:
                return what + ": bytes [" + operands.get(0) + ", " + operands.get(1) + ") and [" + operands.get(2)
                        + ", " + operands.get(3) + ") do not overlap";
            default:
                return what + ": send bytes [" + operands.get(0) + ", " + operands.get(1) + ") and recv bytes ["
                        + operands.get(2) + ", " + operands.get(3) + ") " + (inPlace ? "coincide or " : "")
                        + "do not overlap";
        }
    }

    /** The text of an {@link Kind#AT_MOST} condition: "what: value <= bound". */
    static String atMostText(String what, Expr value, Expr bound) {
        return what + ": " + value + " <= " + bound;
    }
}
