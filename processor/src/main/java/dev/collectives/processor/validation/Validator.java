package dev.collectives.processor.validation;

import dev.collectives.processor.model.PipelineModel;
import java.util.Set;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.element.TypeElement;

/**
 * Checks one rule (or one DSL tag): on each pipeline as read, where attributes that could not be read (null) are
 * skipped, or, for what lies outside any pipeline, on each round's sources. A validator overrides what it checks.
 */
public interface Validator {
    default void validate(PipelineModel model, Diagnostics diagnostics) {}

    /** Checks the round's sources beside its pipelines; {@code annotations} are those the round holds. */
    default void validateRound(
            Set<? extends TypeElement> annotations, RoundEnvironment round, Diagnostics diagnostics) {}
}
