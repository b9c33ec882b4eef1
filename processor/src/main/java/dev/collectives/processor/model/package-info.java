/**
 * The processor's model of a pipeline: {@link dev.collectives.processor.model.ModelReader} reads a
 * {@code @CollectivePipeline} type's annotation mirrors, never throwing on malformed source, into a
 * {@link dev.collectives.processor.model.PipelineModel} of buffers, dims, steps and their ops (each op annotation
 * described by the api's catalogue {@link dev.collectives.annotation.OpKind}, its sides by
 * {@link dev.collectives.processor.model.OpSide}), with the sites diagnostics point at and the R7/R13
 * {@link dev.collectives.processor.model.Conditions} that the prover did not prove true. Internal to the
 * processor: not an API.
 */
package dev.collectives.processor.model;
