package dev.collectives.processor.validation;

import dev.collectives.processor.model.ExprProblem;
import dev.collectives.processor.model.PipelineModel;

/**
 * [DSL expression] and [DSL twins]: an {@code ...Expr} attribute parses (the message gives the column) and names only
 * dims, the step's parameters and {@code ranks} (with a suggestion for a misspelt one); of a numeric attribute and
 * its twin exactly one is given, offsets may give neither.
 */
final class DslExpressionValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (ExprProblem p : model.problems()) {
            if (p.kind() == ExprProblem.Kind.TWINS) {
                diagnostics.error(Tag.TWINS, p.site(), p.message());
            } else if (p.unknownName() == null) {
                diagnostics.error(Tag.EXPRESSION, p.site(), p.message());
            } else {
                diagnostics.error(Tag.EXPRESSION, p.site(), p.message() + "; expressions name @Dim accessors, the "
                        + "step's parameters and `ranks`: " + Suggestions.hint(p.unknownName(), p.inScope(), "names"));
            }
        }
    }
}
