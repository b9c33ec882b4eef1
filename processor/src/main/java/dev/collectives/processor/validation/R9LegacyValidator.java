package dev.collectives.processor.validation;

import dev.collectives.annotation.Allocator;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.rules.Message;

/**
 * R9 LEGACY at compile time: registering legacy (cudaMalloc/musaMalloc) memory needs the explicit opt-in
 * {@code allowLegacyRegistration = true}, unless IB SHARP, which takes any allocator, is what it is registered for.
 * Bind then still needs NCCL_LEGACY_CUDA_REGISTER=1/MCCL_LEGACY_MUSA_REGISTER=1.
 */
final class R9LegacyValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        if (!model.registers() || model.allowLegacyRegistration()) {
            return;
        }
        for (BufferDecl b : model.buffers()) {
            if (b.kind() == BufferDecl.Kind.BUFFER
                    && b.allocator() == Allocator.LEGACY
                    && model.isRegistered(b)
                    && !model.legacyServedByIbSharp(b)) {
                diagnostics.error(Message.R9_WITHOUT_OPT_IN, b.site("allocator"), b.name(), model.registration());
            }
        }
    }
}
