/**
 * The processor's model of a pipeline: {@link dev.collectives.processor.model.ModelReader} reads a
 * {@code @CollectivePipeline} type's annotation mirrors, never throwing on malformed source, into a
 * {@link dev.collectives.processor.model.PipelineModel} of buffers, dims, steps and their ops (each op annotation
 * described by the api's catalogue {@link dev.collectives.annotation.OpKind}, its sides by
 * {@link dev.collectives.processor.model.OpSide}), with the sites diagnostics point at and the types javac could not
 * resolve. It is the declarations as written: what javac could not read is absent (null), for the validators to
 * skip. The R7/R13 {@link dev.collectives.processor.model.Conditions} and the byte ranges of ops' sides
 * ({@link dev.collectives.processor.model.SideRanges}) are worked out of a complete model by validation, which hands
 * the writer an immutable model of its own; the writer never reads this one.
 * Internal to the processor: not an API.
 */
package dev.collectives.processor.model;
