package dev.collectives.processor.validation;

import dev.collectives.processor.model.PipelineModel;

/** Checks one rule (or one DSL tag) on a pipeline model; attributes that could not be read (null) are skipped. */
public interface Validator {
    void validate(PipelineModel model, Diagnostics diagnostics);
}
