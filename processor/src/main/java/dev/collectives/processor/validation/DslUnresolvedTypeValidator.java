package dev.collectives.processor.validation;

import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Unresolved;
import dev.collectives.rules.Message;

/**
 * [DSL pipeline]: a type the pipeline names that is still unresolved when the processor sees it, in the last round:
 * no processor generated it. A custom allocator's class is R11's.
 */
final class DslUnresolvedTypeValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (Unresolved missing : model.unresolved()) {
            if ("customAllocator".equals(missing.attribute())) {
                if (missing.written() == null) { // a resolvable-but-wrong class is R11's validator's to report
                    diagnostics.error(Message.R11_UNRESOLVED, missing.site());
                }
            } else {
                diagnostics.error(
                        Tag.PIPELINE,
                        missing.site(),
                        missing.describe() + " cannot be found, nor did any "
                                + "annotation processor generate it; no class was generated for this pipeline");
            }
        }
    }
}
