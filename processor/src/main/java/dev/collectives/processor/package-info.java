/**
 * The annotation processor's entry point, {@link dev.collectives.processor.CollectivesProcessor}: for each
 * {@code @CollectivePipeline} type it reads the model, runs every validator and, when there is no error, writes the
 * generated {@code Collective<Name>} class. Its only option is {@code -Acollectives.rulesUrl=URL}. Users put the
 * processor on the annotation processor path; the processor's packages are not an API.
 */
package dev.collectives.processor;
