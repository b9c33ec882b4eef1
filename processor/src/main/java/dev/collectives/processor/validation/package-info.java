/**
 * The compile-time checks, and the phase between reading and writing:
 * {@link dev.collectives.processor.validation.Validation} runs one
 * {@link dev.collectives.processor.validation.Validator} per rule ({@code R1MixedValidator}, ...) or DSL check
 * ({@code DslStepValidator}, ...) in the order {@link dev.collectives.processor.validation.Validators} lists them
 * (what lies outside pipelines and types no processor generated first, the generated class's name last), then,
 * where the model is complete, {@code ConditionsValidator} on the R7 and R13 conditions on sizes and offsets that the
 * {@code Prover} proves false. What comes out is a
 * {@link dev.collectives.processor.validation.ValidatedPipeline}, records of known values and lists that cannot
 * change (buffers, dims, steps, their ops and plans, the conditions left to bind and each call), the
 * {@code StepPlanner}'s fusions and groups recorded in it, or diagnostics only. They report through
 * {@link dev.collectives.processor.validation.Diagnostics}: a tag first (a rule's message from the catalogue
 * {@code dev.collectives.rules.Message}, or a DSL tag), the rules page's anchor last, pointing at the annotation value
 * at fault. Internal to the processor: not an API.
 */
package dev.collectives.processor.validation;
