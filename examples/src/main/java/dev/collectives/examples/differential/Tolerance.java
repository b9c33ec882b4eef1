package dev.collectives.examples.differential;

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

    /** The distance from 1 to the next larger value of a floating {@code type}: 2^-mantissa bits. */
    static double epsilon(DataType type) {
        return switch (type) {
            case FLOAT64 -> 0x1p-52;
            case FLOAT32 -> 0x1p-23;
            case FLOAT16 -> 0x1p-10;
            case BFLOAT16 -> 0x1p-7;
            case FP8_E4M3 -> 0x1p-3;
            case FP8_E5M2 -> 0x1p-2;
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }

    /** The smallest positive (subnormal) value of a floating {@code type}: the spacing of results near zero. */
    static double smallest(DataType type) {
        return switch (type) {
            case FLOAT64 -> Double.MIN_VALUE;
            case FLOAT32 -> Float.MIN_VALUE;
            case FLOAT16 -> 0x1p-24;
            case BFLOAT16 -> 0x1p-133;
            case FP8_E4M3 -> 0x1p-9;
            case FP8_E5M2 -> 0x1p-16;
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }
}
