package dev.collectives.tools.differential;

import dev.collectives.annotation.DataType;

/**
 * How far an element that another backend computed may lie from sim's: 0 means bit-exact. Integers, data that is
 * only moved, and reductions whose order is fixed (two ranks: {@code a ⊕ b} is one rounding of a commutative
 * operation) are bit-exact; so is everything when both sides are sim, which adds in rank order in threads and in
 * processes alike. {@link ReductionBound} bounds the rest.
 */
@FunctionalInterface
interface Tolerance {
    /** Bit-exact everywhere. */
    Tolerance EXACT = (type, a, b) -> 0;

    /** The largest {@code |a - b|} allowed for an element of {@code type} read as {@code a} on sim, {@code b} here. */
    double bound(DataType type, double a, double b);
}
