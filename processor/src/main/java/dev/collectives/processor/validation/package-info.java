/**
 * The compile-time checks: one {@link dev.collectives.processor.validation.Validator} per rule
 * ({@code R1MixedValidator}, ...) or DSL check ({@code DslStepValidator}, ...), in the order
 * {@link dev.collectives.processor.validation.Validators} lists them, then {@code ConditionsValidator}, which reports
 * the R7 and R13 conditions on sizes and offsets that the {@code Prover} proves false. They report through
 * {@link dev.collectives.processor.validation.Diagnostics}: a tag first (a rule's message from the catalogue
 * {@code dev.collectives.rules.Message}, or a DSL tag), the rules page's anchor last, pointing at the annotation value
 * at fault. Internal to the processor: not an API.
 */
package dev.collectives.processor.validation;
