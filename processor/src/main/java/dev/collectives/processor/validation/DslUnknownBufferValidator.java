package dev.collectives.processor.validation;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.StepDecl;
import java.util.List;

/**
 * [DSL unknown-buffer]: ops and views name accessors of the same pipeline; views end in a @Buffer or @External. A name
 * of a DeviceBuffer accessor without its annotation is [DSL accessor]'s to report, once, not here at every use.
 */
final class DslUnknownBufferValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        List<String> names = model.buffers().stream().map(BufferDecl::name).toList();
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                if (o.kind().hasSend()) {
                    check(
                            model,
                            names,
                            o.send(),
                            o.kind().sendAttribute(),
                            o.sendSite(),
                            o.kind().annotation(),
                            diagnostics);
                }
                if (o.kind().hasRecv()) {
                    check(
                            model,
                            names,
                            o.recv(),
                            o.kind().recvAttribute(),
                            o.recvSite(),
                            o.kind().annotation(),
                            diagnostics);
                }
            }
        }
        for (BufferDecl b : model.buffers()) {
            if (b.kind() != BufferDecl.Kind.VIEW || b.of() == null) {
                continue;
            }
            if (model.buffer(b.of()).isEmpty()) {
                check(model, names, b.of(), "of", b.site("of"), "@View " + b.name() + "()", diagnostics);
            } else if (model.root(b).isEmpty()) {
                diagnostics.error(
                        Tag.UNKNOWN_BUFFER,
                        b.site("of"),
                        "view `" + b.name() + "` lies in `" + b.of()
                                + "`, but following `of` from there loops back without reaching a @Buffer or @External");
            }
        }
    }

    private static void check(
            PipelineModel model,
            List<String> names,
            String name,
            String attribute,
            Site site,
            String where,
            Diagnostics diagnostics) {
        if (name != null && model.buffer(name).isEmpty() && !Methods.unannotatedAccessor(model, name)) {
            diagnostics.error(
                    Tag.UNKNOWN_BUFFER,
                    site,
                    where + " " + attribute + " = \"" + name + "\" names no " + "accessor of "
                            + model.type().getSimpleName() + "; " + Suggestions.hint(name, names));
        }
    }
}
