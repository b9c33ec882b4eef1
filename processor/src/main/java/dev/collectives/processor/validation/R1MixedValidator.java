package dev.collectives.processor.validation;

import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpSide;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.rules.Message;
import java.util.List;

/**
 * R1 MIXED within a pipeline: the send and recv of an op are both registered or both not (LOCAL honours
 * {@code registered = false} per buffer), and a GRAPH pipeline cannot keep a buffer its captured ops use
 * unregistered, since capture registers what the ops touch.
 */
final class R1MixedValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                List<OpSide> sides = o.sides();
                if (model.registration() == Registration.GRAPH) {
                    for (OpSide side : sides) {
                        if (!model.isRegistered(side.buffer())) {
                            diagnostics.error(
                                    Message.R1_UNREGISTERED_IN_GRAPH,
                                    side.site(),
                                    o.kind().annotation(),
                                    s.name(),
                                    side.buffer().name());
                        }
                    }
                } else if (model.registration() == Registration.LOCAL && sides.size() == 2) {
                    BufferDecl send = sides.get(0).buffer();
                    BufferDecl recv = sides.get(1).buffer();
                    if (model.isRegistered(send) != model.isRegistered(recv)) {
                        OpSide unregistered = model.isRegistered(send) ? sides.get(1) : sides.get(0);
                        diagnostics.error(
                                Message.R1_MIXED_OP,
                                unregistered.site(),
                                o.kind().annotation(),
                                s.name(),
                                send.name(),
                                state(model, send),
                                recv.name(),
                                state(model, recv));
                    }
                }
            }
        }
    }

    private static String state(PipelineModel model, BufferDecl b) {
        return model.isRegistered(b) ? "registered" : "registered = false";
    }
}
