package dev.collectives.processor.validation;

import dev.collectives.annotation.Allocator;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;
import java.util.Optional;

/**
 * R12 WINDOW at compile time: windows need VMM or ncclMemAlloc/mcclMemAlloc memory (not legacy cudaMalloc/musaMalloc),
 * registered memory (a window registers it, which {@code registered = false} forbids), and a head aligned to
 * {@link Rule#WINDOW_ALIGNMENT}: a window on a view must start at a multiple of it in its allocation.
 */
final class R12WindowValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (BufferDecl b : model.buffers()) {
            if (!b.isWindow()) {
                continue;
            }
            Optional<BufferDecl> root = model.root(b);
            if (root.isPresent()
                    && root.get().kind() == BufferDecl.Kind.BUFFER
                    && root.get().allocator() == Allocator.LEGACY) {
                diagnostics.error(Message.R12_LEGACY, b.windowSite(), b.name());
            }
            if (root.isPresent() && Boolean.FALSE.equals(root.get().registeredFlag())) {
                diagnostics.error(
                        Message.R12_UNREGISTERED,
                        b.windowSite(),
                        b.name(),
                        root.get().name());
            }
            Optional<Long> offset = model.offsetInRoot(b);
            if (b.kind() == BufferDecl.Kind.VIEW && offset.isPresent() && offset.get() % Rule.WINDOW_ALIGNMENT != 0) {
                diagnostics.error(
                        Message.R12_MISALIGNED,
                        b.site("offsetBytes"),
                        b.name(),
                        offset.get(),
                        Rule.WINDOW_ALIGNMENT,
                        offset.get() / Rule.WINDOW_ALIGNMENT * Rule.WINDOW_ALIGNMENT);
            }
        }
    }
}
