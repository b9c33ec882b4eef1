package dev.collectives.processor.validation;

import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.util.Elements;

import dev.collectives.annotation.Allocator;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.rules.Rule;

/**
 * R3 MTLS-ALLOC: MTLink SHARP registration needs memory from mcclMemAlloc (MEM_ALLOC), the qualified VMM allocator
 * (VMM) or a qualified custom allocator; legacy musaMalloc memory does not qualify.
 */
final class R3MtlsAllocValidator implements Validator {
    private final Elements elements;

    R3MtlsAllocValidator(ProcessingEnvironment env) {
        this.elements = env.getElementUtils();
    }

    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        if (!model.mtlinkSharp() || !model.registers()) {
            return;
        }
        for (BufferDecl b : model.buffers()) {
            if (b.kind() != BufferDecl.Kind.BUFFER || !model.isRegistered(b) || b.allocator() == null) {
                continue;
            }
            if (b.allocator() == Allocator.LEGACY) {
                diagnostics.error(Rule.R3_MTLS_ALLOC, b.site("allocator"), "buffer `" + b.name() + "` uses "
                        + "Allocator.LEGACY (musaMalloc), but MTLink SHARP registration needs mcclMemAlloc or a "
                        + "qualified allocator: use Allocator.MEM_ALLOC or Allocator.VMM");
            } else if (b.allocator() == Allocator.CUSTOM && b.customAllocator() != null) {
                boolean qualified = Allocators.classOf(b.customAllocator())
                        .flatMap(c -> Allocators.handleTypes(elements, c)).isPresent();
                if (!qualified) {
                    diagnostics.error(Rule.R3_MTLS_ALLOC, b.site("customAllocator"), "buffer `" + b.name() + "` uses "
                            + b.customAllocator() + ", which is not a qualified allocator (no @QualifiedAllocator), "
                            + "but MTLink SHARP registration needs mcclMemAlloc or a qualified allocator");
                }
            }
        }
    }
}
