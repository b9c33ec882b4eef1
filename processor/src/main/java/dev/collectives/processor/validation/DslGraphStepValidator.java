package dev.collectives.processor.validation;

import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.StepDecl;
import javax.lang.model.element.ExecutableElement;

/**
 * [DSL graph-step]: a GRAPH step is captured into a graph and replayed (once at bind, or per argument tuple when it
 * has parameters), so it returns nothing.
 */
final class DslGraphStepValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        if (model.registration() != Registration.GRAPH) {
            return;
        }
        for (StepDecl s : model.steps()) {
            ExecutableElement m = s.method();
            if (!Methods.returnsVoid(m)) {
                diagnostics.error(
                        Tag.GRAPH_STEP,
                        Site.of(m),
                        "GRAPH step `" + s.name() + "()` returns `" + m.getReturnType()
                                + "`; a graph launch returns nothing: declare `void " + s.name() + "()`");
            }
        }
    }
}
