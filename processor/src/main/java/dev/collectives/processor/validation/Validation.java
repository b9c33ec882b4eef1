package dev.collectives.processor.validation;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.CaptureDecl;
import dev.collectives.processor.model.Condition;
import dev.collectives.processor.model.Conditions;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.element.TypeElement;

/**
 * Validates one pipeline as read: every validator reports on it; then, where everything the writer reads is known,
 * the R7 and R13 conditions on sizes and offsets are proved, once, and {@link ConditionsValidator} reports those
 * that hold for no value. The outcome is the {@link ValidatedPipeline}, or nothing where the diagnostics say why.
 */
public final class Validation {
    private final List<Validator> validators;
    private final ConditionsValidator conditionsValidator = new ConditionsValidator();

    /** @param validators {@link Validators#all}, in the order their diagnostics read best */
    public Validation(List<Validator> validators) {
        this.validators = validators;
    }

    /** What every validator finds in the round's sources beside its pipelines. */
    public void validateRound(Set<? extends TypeElement> annotations, RoundEnvironment round, Diagnostics diagnostics) {
        validators.forEach(v -> v.validateRound(annotations, round, diagnostics));
    }

    public Optional<ValidatedPipeline> validate(PipelineModel model, Diagnostics diagnostics) {
        validators.forEach(v -> v.validate(model, diagnostics));
        if (!complete(model)) {
            return Optional.empty();
        }
        List<Condition> conditions = Conditions.of(model);
        conditionsValidator.validate(conditions, diagnostics);
        return diagnostics.hasErrors() ? Optional.empty() : Optional.of(ValidatedPipeline.of(model, conditions));
    }

    /**
     * Whether everything the writer reads is known. Values javac could not read (and reports itself: missing
     * attributes, unknown constants) leave a model incomplete, and then nothing is generated: a value that could not
     * be read never reaches the writer.
     */
    private static boolean complete(PipelineModel model) {
        if (model.registration() == null
                || model.graphCacheOverflow() == null
                || !model.problems().isEmpty()) {
            return false;
        }
        for (BufferDecl b : model.buffers()) {
            boolean known = b.type() != null
                    && b.expression("count") != null
                    && switch (b.kind()) {
                        case BUFFER ->
                            b.allocator() != null && b.registeredFlag() != null && b.customAllocator() != null;
                        case VIEW ->
                            b.of() != null
                                    && b.expression("offsetBytes") != null
                                    && model.root(b).isPresent();
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
            for (CaptureDecl c : s.captures()) {
                if (c.param() == null || c.values().contains(null)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean complete(PipelineModel model, OpDecl o) {
        boolean sides = (!o.kind().hasSend()
                        || o.send() != null
                                && o.expression(o.kind().sendOffsetAttribute()) != null
                                && model.buffer(o.send()).isPresent())
                && (!o.kind().hasRecv()
                        || o.recv() != null
                                && o.expression(o.kind().recvOffsetAttribute()) != null
                                && model.buffer(o.recv()).isPresent());
        return sides
                && o.expression(o.kind().countAttribute()) != null
                && (!o.kind().reduces() || o.op() != null)
                && (!o.kind().hasRoot() || o.root() != null)
                && (!o.kind().isPointToPoint() || o.peer() != null && o.peerRank() != null);
    }
}
