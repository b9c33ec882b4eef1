package dev.collectives.processor.validation;

import dev.collectives.annotation.Allocator;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.rules.Message;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.util.Elements;

/**
 * R3 MTLS-ALLOC: MTLink SHARP registration needs memory from ncclMemAlloc/mcclMemAlloc (MEM_ALLOC), the qualified
 * VMM allocator (VMM) or a qualified custom allocator; legacy cudaMalloc/musaMalloc memory does not qualify.
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
                diagnostics.error(Message.R3_LEGACY, b.site("allocator"), b.name());
            } else if (b.allocator() == Allocator.CUSTOM && b.customAllocator() != null) {
                boolean qualified = Allocators.classOf(b.customAllocator())
                        .flatMap(c -> Allocators.handleTypes(elements, c))
                        .isPresent();
                if (!qualified) {
                    diagnostics.error(
                            Message.R3_UNQUALIFIED_CUSTOM, b.site("customAllocator"), b.name(), b.customAllocator());
                }
            }
        }
    }
}
