package dev.collectives.processor.validation;

import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.rules.Message;

/**
 * R8 IB-SHARP at compile time: IB SHARP serves allreduce, reducescatter and allgather; other ops of an IB SHARP
 * pipeline still run, on the general path (a warning). The 1-rank-per-node condition is checked at bind.
 */
final class R8IbSharpValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        if (!model.ibSharp()) {
            return;
        }
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                if (!o.kind().sharpServed()) {
                    diagnostics.warning(
                            Message.R8_GENERAL_PATH, o.site(), o.kind().annotation(), s.name());
                }
            }
        }
    }
}
