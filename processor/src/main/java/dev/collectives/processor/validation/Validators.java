package dev.collectives.processor.validation;

import java.util.List;
import javax.annotation.processing.ProcessingEnvironment;

/**
 * Every validator, in the order their diagnostics read best: what lies outside pipelines and what no processor
 * generated, the declarations, then the rules, last the name of the class to generate.
 */
public final class Validators {
    private Validators() {}

    public static List<Validator> all(ProcessingEnvironment env) {
        return List.of(
                new DslOutsidePipelineValidator(),
                new DslUnresolvedTypeValidator(),
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
                new DslGeneratedNameValidator(env.getElementUtils(), env.getTypeUtils()));
    }
}
