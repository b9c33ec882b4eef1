package dev.collectives.processor.validation;

import java.util.List;

import javax.annotation.processing.ProcessingEnvironment;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;

/** Every validator, in the order their diagnostics read best: declarations first, then the rules. */
public final class Validators {
    private Validators() {
    }

    public static List<Validator> all(ProcessingEnvironment env) {
        return List.of(
                new DslPipelineValidator(),
                new DslDuplicateValidator(),
                new DslAccessorValidator(),
                new DslStepValidator(),
                new DslPeerPairingValidator(),
                new DslGraphStepValidator(),
                new DslUnknownBufferValidator(),
                new DslExpressionValidator(),
                new DslDimValidator(),
                new DslParameterValidator(),
                new DslCaptureValidator(),
                new R1MixedValidator(),
                new R3MtlsAllocValidator(env),
                new R8IbSharpValidator(),
                new R9LegacyValidator(),
                new R11AllocatorValidator(env),
                new R12WindowValidator(),
                new R13TypesValidator(),
                new ConditionsValidator());
    }

    /**
     * Whether everything the writer reads is known. Values javac could not read (and reports itself: missing
     * attributes, unknown constants) leave a model incomplete, and then nothing is generated.
     */
    public static boolean complete(PipelineModel model) {
        if (model.registration() == null || !model.problems().isEmpty()) {
            return false;
        }
        for (BufferDecl b : model.buffers()) {
            boolean known = b.type() != null && b.expression("count") != null && switch (b.kind()) {
                case BUFFER -> b.allocator() != null && b.registeredFlag() != null && b.customAllocator() != null;
                case VIEW -> b.of() != null && b.expression("offsetBytes") != null && model.root(b).isPresent();
                case EXTERNAL -> true;
            };
            if (!known) {
                return false;
            }
        }
        for (StepDecl s : model.steps()) {
            for (OpDecl o : s.ops()) {
                if (!complete(model, o)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean complete(PipelineModel model, OpDecl o) {
        boolean sides = (!o.kind().hasSend() || o.send() != null
                && o.expression(o.kind().sendOffsetAttribute()) != null && model.buffer(o.send()).isPresent())
                && (!o.kind().hasRecv() || o.recv() != null
                && o.expression(o.kind().recvOffsetAttribute()) != null && model.buffer(o.recv()).isPresent());
        return sides && o.expression(o.kind().countAttribute()) != null
                && (!o.kind().reduces() || o.op() != null)
                && (!o.kind().hasRoot() || o.root() != null)
                && (!o.kind().isPointToPoint() || o.peer() != null && o.peerRank() != null);
    }
}
