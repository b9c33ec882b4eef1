/**
 * The compile-time checks: one {@link dev.collectives.processor.validation.Validator} per rule
 * ({@code R7ArenaValidator}, ...) or DSL check ({@code DslStepValidator}, ...), in the order
 * {@link dev.collectives.processor.validation.Validators} lists them, then {@code SymbolicValidator} for expressions.
 * They report through {@link dev.collectives.processor.validation.Diagnostics}: a tag first, the rules page's anchor
 * last, pointing at the annotation value at fault. Internal to the processor: not an API.
 */
package dev.collectives.processor.validation;
