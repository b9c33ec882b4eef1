package dev.collectives.backend.sim.internal;

import static dev.collectives.backend.sim.internal.Scratch.CHUNK;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Numerics;
import java.nio.ByteBuffer;

/**
 * The Java path of {@link Kernels#reduce} for the float family: FLOAT32 and the narrow formats (FLOAT16, BFLOAT16,
 * FP8_E4M3, FP8_E5M2), computed in float and rounded to the type after every step.
 */
final class FloatReductions {
    private FloatReductions() {}

    static void reduce(DataType type, ReduceOp op, ByteBuffer[] in, ByteBuffer[] out, int count) {
        Scratch scratch = Scratch.get();
        float[] acc = scratch.floats;
        float[] x = scratch.moreFloats;
        float scalar = roundTo(type, (float) (1.0 / in.length));
        for (int start = 0; start < count; start += CHUNK) {
            int n = Math.min(CHUNK, count - start);
            loadFloats(type, in[0], start, acc, n, scratch);
            if (op == ReduceOp.AVG) {
                scale(type, acc, n, scalar);
            }
            for (int r = 1; r < in.length; r++) {
                loadFloats(type, in[r], start, x, n, scratch);
                if (op == ReduceOp.AVG) {
                    scale(type, x, n, scalar);
                }
                combine(op, acc, x, n);
                if (r < in.length - 1) {
                    roundTo(type, acc, n); // the last step is rounded by the store
                }
            }
            storeFloats(type, acc, n, out, start, scratch);
        }
    }

    private static void combine(ReduceOp op, float[] acc, float[] x, int n) {
        switch (op) {
            case SUM:
            case AVG:
                for (int i = 0; i < n; i++) {
                    acc[i] += x[i];
                }
                break;
            case PROD:
                for (int i = 0; i < n; i++) {
                    acc[i] *= x[i];
                }
                break;
            case MIN:
                for (int i = 0; i < n; i++) {
                    acc[i] = Float.isNaN(acc[i]) ? x[i] : Float.isNaN(x[i]) ? acc[i] : Math.min(acc[i], x[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++) {
                    acc[i] = Float.isNaN(acc[i]) ? x[i] : Float.isNaN(x[i]) ? acc[i] : Math.max(acc[i], x[i]);
                }
                break;
            default:
                throw new AssertionError(op);
        }
    }

    /** NCCL's PreMulSum pre-op: each value times the scalar, rounded to the type. */
    private static void scale(DataType type, float[] values, int n, float scalar) {
        for (int i = 0; i < n; i++) {
            values[i] *= scalar;
        }
        roundTo(type, values, n);
    }

    private static float roundTo(DataType type, float value) {
        return (float) Numerics.decode(type, Numerics.encode(type, value));
    }

    /** Rounds float results to a narrow type; float arithmetic has rounded FLOAT32 already. */
    private static void roundTo(DataType type, float[] values, int n) {
        if (type != DataType.FLOAT32) {
            float[] decoded = decodingTable(type);
            for (int i = 0; i < n; i++) {
                values[i] = decoded[(int) Numerics.encode(type, values[i])];
            }
        }
    }

    /** The values of all bit patterns of a 1- or 2-byte floating type, indexed by the unsigned pattern. */
    private static float[] decodingTable(DataType type) {
        switch (type) {
            case FLOAT16:
                return DecodingTables.FLOAT16;
            case BFLOAT16:
                return DecodingTables.BFLOAT16;
            case FP8_E4M3:
                return DecodingTables.FP8_E4M3;
            case FP8_E5M2:
                return DecodingTables.FP8_E5M2;
            default:
                throw new AssertionError(type);
        }
    }

    /** Built on first use of a narrow type (holder idiom). */
    private static final class DecodingTables {
        static final float[] FLOAT16 = of(DataType.FLOAT16);
        static final float[] BFLOAT16 = of(DataType.BFLOAT16);
        static final float[] FP8_E4M3 = of(DataType.FP8_E4M3);
        static final float[] FP8_E5M2 = of(DataType.FP8_E5M2);

        private static float[] of(DataType type) {
            float[] values = new float[1 << (8 * type.size())];
            for (int bits = 0; bits < values.length; bits++) {
                values[bits] = (float) Numerics.decode(type, bits);
            }
            return values;
        }
    }

    private static void loadFloats(DataType type, ByteBuffer from, int index, float[] to, int n, Scratch scratch) {
        switch (type.size()) {
            case 4:
                from.asFloatBuffer().get(index, to, 0, n);
                break;
            case 2: {
                short[] raw = scratch.shorts;
                from.asShortBuffer().get(index, raw, 0, n);
                float[] decoded = decodingTable(type);
                for (int i = 0; i < n; i++) {
                    to[i] = decoded[raw[i] & 0xFFFF];
                }
                break;
            }
            default: {
                byte[] raw = scratch.bytes;
                from.get(index, raw, 0, n);
                float[] decoded = decodingTable(type);
                for (int i = 0; i < n; i++) {
                    to[i] = decoded[raw[i] & 0xFF];
                }
                break;
            }
        }
    }

    /** Stores the values in every destination, encoding them once. */
    private static void storeFloats(DataType type, float[] from, int n, ByteBuffer[] to, int index, Scratch scratch) {
        switch (type.size()) {
            case 4:
                for (ByteBuffer destination : to) {
                    destination.asFloatBuffer().put(index, from, 0, n);
                }
                break;
            case 2: {
                short[] raw = scratch.shorts;
                for (int i = 0; i < n; i++) {
                    raw[i] = (short) Numerics.encode(type, from[i]);
                }
                for (ByteBuffer destination : to) {
                    destination.asShortBuffer().put(index, raw, 0, n);
                }
                break;
            }
            default: {
                byte[] raw = scratch.bytes;
                for (int i = 0; i < n; i++) {
                    raw[i] = (byte) Numerics.encode(type, from[i]);
                }
                for (ByteBuffer destination : to) {
                    destination.put(index, raw, 0, n);
                }
                break;
            }
        }
    }
}
