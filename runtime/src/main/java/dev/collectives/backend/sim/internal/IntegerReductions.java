package dev.collectives.backend.sim.internal;

import static dev.collectives.backend.sim.internal.Scratch.CHUNK;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import java.nio.ByteBuffer;

/**
 * The Java path of {@link Kernels#reduce} for the integers: INT8, UINT8, INT32 and UINT32 computed in int, INT64 and
 * UINT64 in long. Sums and products wrap; the narrow types are loaded sign- or zero-extended and stored by keeping
 * the low bits, so a signed comparison orders UINT8 correctly and only UINT32 and UINT64 need unsigned comparison.
 */
final class IntegerReductions {
    private IntegerReductions() {}

    static void reduceInts(DataType type, ReduceOp op, ByteBuffer[] in, ByteBuffer[] out, int count) {
        Scratch scratch = Scratch.get();
        int[] acc = scratch.ints;
        int[] x = scratch.moreInts;
        boolean unsigned = type == DataType.UINT32;
        for (int start = 0; start < count; start += CHUNK) {
            int n = Math.min(CHUNK, count - start);
            loadInts(type, in[0], start, acc, n, scratch);
            for (int r = 1; r < in.length; r++) {
                loadInts(type, in[r], start, x, n, scratch);
                combine(op, unsigned, acc, x, n);
            }
            storeInts(type, acc, n, out, start, scratch);
        }
    }

    private static void combine(ReduceOp op, boolean unsigned, int[] acc, int[] x, int n) {
        switch (op) {
            case SUM:
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
                    acc[i] = (unsigned ? Integer.compareUnsigned(x[i], acc[i]) < 0 : x[i] < acc[i]) ? x[i] : acc[i];
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++) {
                    acc[i] = (unsigned ? Integer.compareUnsigned(x[i], acc[i]) > 0 : x[i] > acc[i]) ? x[i] : acc[i];
                }
                break;
            default:
                throw new AssertionError(op);
        }
    }

    private static void loadInts(DataType type, ByteBuffer from, int index, int[] to, int n, Scratch scratch) {
        if (type.size() == 4) {
            from.asIntBuffer().get(index, to, 0, n);
            return;
        }
        byte[] raw = scratch.bytes;
        from.get(index, raw, 0, n);
        int mask = type == DataType.UINT8 ? 0xFF : -1;
        for (int i = 0; i < n; i++) {
            to[i] = raw[i] & mask;
        }
    }

    /** Stores the values in every destination, narrowing them once. */
    private static void storeInts(DataType type, int[] from, int n, ByteBuffer[] to, int index, Scratch scratch) {
        if (type.size() == 4) {
            for (ByteBuffer destination : to) {
                destination.asIntBuffer().put(index, from, 0, n);
            }
            return;
        }
        byte[] raw = scratch.bytes;
        for (int i = 0; i < n; i++) {
            raw[i] = (byte) from[i];
        }
        for (ByteBuffer destination : to) {
            destination.put(index, raw, 0, n);
        }
    }

    static void reduceLongs(DataType type, ReduceOp op, ByteBuffer[] in, ByteBuffer[] out, int count) {
        Scratch scratch = Scratch.get();
        long[] acc = scratch.longs;
        long[] x = scratch.moreLongs;
        boolean unsigned = type == DataType.UINT64;
        for (int start = 0; start < count; start += CHUNK) {
            int n = Math.min(CHUNK, count - start);
            in[0].asLongBuffer().get(start, acc, 0, n);
            for (int r = 1; r < in.length; r++) {
                in[r].asLongBuffer().get(start, x, 0, n);
                combine(op, unsigned, acc, x, n);
            }
            for (ByteBuffer destination : out) {
                destination.asLongBuffer().put(start, acc, 0, n);
            }
        }
    }

    private static void combine(ReduceOp op, boolean unsigned, long[] acc, long[] x, int n) {
        switch (op) {
            case SUM:
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
                    acc[i] = (unsigned ? Long.compareUnsigned(x[i], acc[i]) < 0 : x[i] < acc[i]) ? x[i] : acc[i];
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++) {
                    acc[i] = (unsigned ? Long.compareUnsigned(x[i], acc[i]) > 0 : x[i] > acc[i]) ? x[i] : acc[i];
                }
                break;
            default:
                throw new AssertionError(op);
        }
    }
}
