package dev.collectives.processor.validation;

import javax.lang.model.element.ExecutableElement;

import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.StepDecl;

/** [DSL graph-step]: a GRAPH step is captured once at bind and replayed, so it takes no arguments and returns nothing. */
final class DslGraphStepValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        if (model.registration() != Registration.GRAPH) {
            return;
        }
        for (StepDecl s : model.steps()) {
            ExecutableElement m = s.method();
            if (!m.getParameters().isEmpty()) {
                diagnostics.error(Tag.GRAPH_STEP, Site.of(m), "GRAPH step `" + s.name() + "` takes parameters; it is "
                        + "captured once at bind and replayed, so nothing can vary per call: declare `void "
                        + s.name() + "()`");
            }
            if (!Methods.returnsVoid(m)) {
                diagnostics.error(Tag.GRAPH_STEP, Site.of(m), "GRAPH step `" + s.name() + "()` returns `"
                        + m.getReturnType() + "`; a graph launch returns nothing: declare `void " + s.name() + "()`");
            }
        }
    }
}
