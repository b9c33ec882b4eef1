package dev.collectives.processor.validation;

import dev.collectives.processor.expr.Verdict;
import dev.collectives.processor.model.Condition;
import dev.collectives.processor.model.PipelineModel;

/**
 * R7 and R13 on sizes and offsets, constant or given by expressions: a condition that holds for no value of the dims
 * and parameters is a compile error with the rule's tag; one that holds for every value needs nothing; the rest are
 * checked at bind or at each call.
 */
final class ConditionsValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        if (!Validators.complete(model)) {
            return;
        }
        for (Condition c : model.conditions()) {
            if (c.verdict() == Verdict.FALSE) {
                diagnostics.error(c.failure(), c.site(), c.failureArguments().toArray());
            }
        }
    }
}
