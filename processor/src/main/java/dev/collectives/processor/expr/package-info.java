/**
 * Sizes and offsets given as {@code ...Expr} strings: the {@link dev.collectives.processor.expr.Expr} tree, its
 * {@link dev.collectives.processor.expr.ExprParser parser} (literals, dims, step parameters, {@code ranks},
 * {@code + - * / %}, {@code floorDiv}), and the polynomial {@link dev.collectives.processor.expr.Prover}, which says
 * of a condition whether it holds for every value, for none, or must be checked at bind or call
 * ({@link dev.collectives.processor.expr.Verdict}). Internal to the processor: not an API.
 */
package dev.collectives.processor.expr;
