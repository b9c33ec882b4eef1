package dev.collectives.processor.validation;

import dev.collectives.processor.model.ExprProblem;
import dev.collectives.processor.model.PipelineModel;
import java.util.Optional;
import javax.lang.model.element.ExecutableElement;

/**
 * [DSL expression] and [DSL twins]: an {@code ...Expr} attribute parses (the message gives the column) and names only
 * dims, the step's parameters and {@code ranks} (with a suggestion for a misspelt one); of a numeric attribute and
 * its twin exactly one is given, offsets may give neither. A name of a method without annotations returning
 * {@code long} or {@code int} is a forgotten {@code @Dim}: [DSL dim].
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
                unknownName(model, p, diagnostics);
            }
        }
    }

    private static void unknownName(PipelineModel model, ExprProblem p, Diagnostics diagnostics) {
        Optional<ExecutableElement> dim = Methods.missingDim(model, p.unknownName());
        if (dim.isPresent()) {
            String signature = Methods.signature(dim.get());
            diagnostics.error(
                    Tag.DIM,
                    p.site(),
                    p.message() + "; " + signature + " has no annotation: did you mean " + "`@Dim "
                            + signature.substring(1) + ", a size given at bind?");
        } else {
            diagnostics.error(
                    Tag.EXPRESSION,
                    p.site(),
                    p.message() + "; expressions name @Dim accessors, the " + "step's parameters and `ranks`: "
                            + Suggestions.hint(p.unknownName(), p.inScope(), "names"));
        }
    }
}
