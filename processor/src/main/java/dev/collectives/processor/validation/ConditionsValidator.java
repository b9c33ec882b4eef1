package dev.collectives.processor.validation;

import dev.collectives.processor.expr.Verdict;
import dev.collectives.processor.model.Condition;
import java.util.List;

/**
 * R7 and R13 on sizes and offsets, constant or given by expressions: a condition that holds for no value of the dims
 * and parameters is a compile error with the rule's tag; one that holds for every value needs nothing; the rest are
 * checked at bind or at each call. {@link Validation} proves the conditions once, of a complete model, and hands
 * them to the writer as well.
 */
final class ConditionsValidator {
    void validate(List<Condition> conditions, Diagnostics diagnostics) {
        for (Condition c : conditions) {
            if (c.verdict() == Verdict.FALSE) {
                diagnostics.error(c.failure(), c.site(), c.failureArguments().toArray());
            }
        }
    }
}
