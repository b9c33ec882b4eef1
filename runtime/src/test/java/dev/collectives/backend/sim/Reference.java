package dev.collectives.backend.sim;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Numerics;

/**
 * Element values for tests, as raw bits (the low {@code type.size()} bytes of a long), and the reductions the
 * GPU libraries compute, written independently of the backend: per element, in rank order
 * ({@code acc = x0; acc = round(acc ⊕ x_r)}), narrow floating types in float with rounding after each step,
 * integers wrapping, unsigned types compared unsigned, AVG as the sum of {@code round(x_r × round(1/n))}.
 */
final class Reference {
    private Reference() {}

    /**
     * A deterministic, never-zero test value for element {@code i} of rank {@code rank}: small multiples of 1/4
     * for floating types (so products stay in range of fp8), arbitrary bit patterns for integers (so sums wrap).
     */
    static long value(DataType type, int rank, long i, int salt) {
        long h = mix(rank * 0x9E3779B97F4A7C15L + i * 0xC2B2AE3D27D4EB4FL + salt);
        if (!type.isFloatingPoint()) {
            return h & mask(type);
        }
        long quarterSteps = Math.floorMod(h, 13) - 6; // -6..6
        double v = quarterSteps == 0 ? 0.5 : quarterSteps * 0.25 * (1 + Math.floorMod(h >>> 8, 3));
        return encode(type, v);
    }

    static long reduce(DataType type, ReduceOp op, long[] xs) {
        if (!type.isFloatingPoint()) {
            return reduceIntegers(type, op, xs);
        }
        if (type == DataType.FLOAT64) {
            return reduceDoubles(op, xs);
        }
        return reduceFloats(type, op, xs);
    }

    private static long reduceIntegers(DataType type, ReduceOp op, long[] xs) {
        long acc = signExtend(type, xs[0]);
        for (int r = 1; r < xs.length; r++) {
            long x = signExtend(type, xs[r]);
            switch (op) {
                case SUM -> acc = acc + x;
                case PROD -> acc = acc * x;
                case MAX -> acc = compare(type, x, acc) > 0 ? x : acc;
                case MIN -> acc = compare(type, x, acc) < 0 ? x : acc;
                default -> throw new IllegalArgumentException(op + " on " + type);
            }
            acc = signExtend(type, acc & mask(type));
        }
        return acc & mask(type);
    }

    private static int compare(DataType type, long a, long b) {
        boolean unsigned = type == DataType.UINT8 || type == DataType.UINT32 || type == DataType.UINT64;
        return unsigned ? Long.compareUnsigned(a & mask(type), b & mask(type)) : Long.compare(a, b);
    }

    private static long reduceDoubles(ReduceOp op, long[] xs) {
        double scale = 1.0 / xs.length;
        double acc = Double.longBitsToDouble(xs[0]) * (op == ReduceOp.AVG ? scale : 1);
        for (int r = 1; r < xs.length; r++) {
            double x = Double.longBitsToDouble(xs[r]) * (op == ReduceOp.AVG ? scale : 1);
            acc = switch (op) {
                case SUM, AVG -> acc + x;
                case PROD -> acc * x;
                case MAX -> Math.max(acc, x);
                case MIN -> Math.min(acc, x);
            };
        }
        return Double.doubleToRawLongBits(acc);
    }

    private static long reduceFloats(DataType type, ReduceOp op, long[] xs) {
        float scale = op == ReduceOp.AVG ? round(type, 1.0f / xs.length) : 1f;
        float acc = round(type, decode(type, xs[0]) * scale);
        for (int r = 1; r < xs.length; r++) {
            float x = round(type, decode(type, xs[r]) * scale);
            acc = round(
                    type,
                    switch (op) {
                        case SUM, AVG -> acc + x;
                        case PROD -> acc * x;
                        case MAX -> Math.max(acc, x);
                        case MIN -> Math.min(acc, x);
                    });
        }
        return encode(type, acc);
    }

    private static float round(DataType type, float v) {
        return type == DataType.FLOAT32 ? v : decode(type, encode(type, v));
    }

    static float decode(DataType type, long bits) {
        return (float) Numerics.decode(type, bits);
    }

    static double decodeDouble(DataType type, long bits) {
        return Numerics.decode(type, bits);
    }

    static long encode(DataType type, double v) {
        return Numerics.encode(type, v);
    }

    static long mask(DataType type) {
        return type.size() == 8 ? -1L : (1L << (8 * type.size())) - 1;
    }

    private static long signExtend(DataType type, long bits) {
        int shift = 64 - 8 * type.size();
        return (bits << shift) >> shift;
    }

    /** Raw element bits to little-endian bytes and back. */
    static byte[] toBytes(DataType type, long[] elements) {
        byte[] bytes = new byte[elements.length * type.size()];
        for (int e = 0; e < elements.length; e++) {
            for (int b = 0; b < type.size(); b++) {
                bytes[e * type.size() + b] = (byte) (elements[e] >>> (8 * b));
            }
        }
        return bytes;
    }

    static long[] fromBytes(DataType type, byte[] bytes) {
        long[] elements = new long[bytes.length / type.size()];
        for (int e = 0; e < elements.length; e++) {
            long v = 0;
            for (int b = 0; b < type.size(); b++) {
                v |= (bytes[e * type.size() + b] & 0xFFL) << (8 * b);
            }
            elements[e] = v;
        }
        return elements;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
