/**
 * Writes the {@code Collective<Name>} class of a validated pipeline with JavaPoet:
 * {@link dev.collectives.processor.writer.PipelineWriter} runs the parts of one generation (layout and registration,
 * bind-time checks and the fingerprint, sizes from dims and parameters, captures and steps, {@code describe()} and
 * {@code close()}) in the order of the NCCL/MCCL guide's C sequence, into a JavaPoet {@code JavaFile} that the processor
 * writes with {@code JavaFile.writeTo(filer)}. The generated code names only the runtime API and
 * {@code dev.collectives.runtime.internal}. Internal to the processor: not an API.
 */
package dev.collectives.processor.writer;
