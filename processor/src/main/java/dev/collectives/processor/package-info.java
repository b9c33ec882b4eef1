/**
 * The annotation processor's entry point, {@link dev.collectives.processor.CollectivesProcessor}: for each
 * {@code @CollectivePipeline} type it reads the model, validates it (diagnostics, or a validated pipeline) and
 * writes the generated {@code Collective<Name>} class of a validated pipeline. Its only option is
 * {@code -Acollectives.rulesUrl=URL}. Users put the processor on the annotation processor path; the processor's
 * packages are not an API.
 */
package dev.collectives.processor;
