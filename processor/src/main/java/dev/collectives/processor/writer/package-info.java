/**
 * Writes the {@code Collective<Name>} class of a validated pipeline with JavaPoet. Each part of one generation
 * (layout and registration, bind-time checks and the fingerprint, sizes from dims and parameters, captures and steps,
 * {@code describe()} and {@code close()}) returns JavaPoet values: fields, methods, and
 * {@link dev.collectives.processor.writer.Fragment}s of the bind sequence with the resources they make.
 * {@link dev.collectives.processor.writer.PipelineWriter} puts them in the order of the NCCL/MCCL guide's C sequence
 * and assembles a JavaPoet {@code JavaFile}, which the processor writes with {@code JavaFile.writeTo(filer)}. The
 * generated code names only the runtime API and {@code dev.collectives.runtime.internal}. Internal to the
 * processor: not an API.
 */
package dev.collectives.processor.writer;
