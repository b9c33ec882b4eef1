package dev.collectives.processor.validation;

import java.util.Optional;

import dev.collectives.annotation.Allocator;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.rules.Rule;

/**
 * R12 WINDOW at compile time: windows need VMM or mcclMemAlloc memory (not legacy musaMalloc), and a head aligned
 * to 4096 bytes: a window on a view must start at a multiple of 4096 in its allocation.
 */
final class R12WindowValidator implements Validator {
    static final long WINDOW_ALIGNMENT = 4096;

    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (BufferDecl b : model.buffers()) {
            if (!b.isWindow()) {
                continue;
            }
            Optional<BufferDecl> root = model.root(b);
            if (root.isPresent() && root.get().kind() == BufferDecl.Kind.BUFFER
                    && root.get().allocator() == Allocator.LEGACY) {
                diagnostics.error(Rule.R12_WINDOW, b.windowSite(), "window `" + b.name() + "` is on Allocator.LEGACY "
                        + "(musaMalloc) memory; window registration needs Allocator.MEM_ALLOC, VMM or a qualified "
                        + "custom allocator");
            }
            Optional<Long> offset = model.offsetInRoot(b);
            if (b.kind() == BufferDecl.Kind.VIEW && offset.isPresent() && offset.get() % WINDOW_ALIGNMENT != 0) {
                diagnostics.error(Rule.R12_WINDOW, b.site("offsetBytes"), "window `" + b.name() + "` starts at byte "
                        + offset.get() + " of its allocation; a window's head must be aligned to " + WINDOW_ALIGNMENT
                        + " bytes (nearest: " + (offset.get() / WINDOW_ALIGNMENT * WINDOW_ALIGNMENT) + ")");
            }
        }
    }
}
