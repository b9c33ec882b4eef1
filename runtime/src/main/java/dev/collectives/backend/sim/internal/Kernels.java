package dev.collectives.backend.sim.internal;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Numerics;
import dev.collectives.runtime.spi.HostMemory;
import java.nio.ByteBuffer;

/**
 * The sim backend's compute kernels: elementwise reductions and copies on "device" memory, which is host memory
 * addressed by raw native addresses. Not API: public for the sim backend and the project's benchmarks, which time
 * the kernels on their own.
 *
 * <h2>Reduction semantics</h2>
 * {@link #reduce} computes, for every element {@code i < count}, with {@code x_r = sources[r][i]} and {@code n =
 * sources.length}: {@code acc = x_0; acc = round_T(acc ⊕ x_r) for r = 1 .. n-1; destination[i] = acc}, that is the
 * sources are combined in array order and the result is rounded back to the element type after every step, as the
 * GPU kernels do.
 * <ul>
 *   <li>FLOAT16, BFLOAT16, FP8_E4M3, FP8_E5M2: each step is computed in float and rounded to the type with
 *       {@link Numerics} (round to nearest even; fp8 saturates to its largest finite value). FLOAT32 computes in
 *       float, FLOAT64 in double.</li>
 *   <li>Integers: SUM and PROD wrap (two's complement); MIN and MAX compare UINT8, UINT32 and UINT64 unsigned, the
 *       others signed.</li>
 *   <li>MIN and MAX on floating types follow C's {@code fminf}/{@code fmaxf}, which NCCL uses: a NaN operand is
 *       ignored (the other operand is the result), so NaN comes out only where every source holds NaN. Otherwise
 *       -0 is below +0.</li>
 *   <li>AVG (floating types only; an integer type throws {@link IllegalArgumentException}) is NCCL's PreMulSum:
 *       every input is first multiplied by the scalar {@code s = 1/n} and the product rounded to the type, then
 *       the products are summed as SUM does. Like NCCL, {@code s} is {@code (double) 1/n} for FLOAT64 and
 *       {@code (float) (1.0/n)} for FLOAT32, and for the narrow types that float rounded to the type itself
 *       (NCCL passes the scalar as a value of the element type: {@code __float2half(float(1.0/nRanks))}, ...),
 *       which differs from 1/n when n is not a power of two.</li>
 * </ul>
 * The result may be written to several destinations at once (an allreduce's slice goes to every rank), so that it
 * is computed once and never read back. A destination may be any of the sources (in place); other overlaps are not
 * supported. Calls on disjoint destination ranges may run concurrently.
 *
 * <h2>Native path</h2>
 * The integer types, FLOAT32 and FLOAT64 are reduced by {@link NativeKernels} where its library loads: C++ with the
 * same arithmetic, so the same results, but for which NaN payload comes out where NaNs meet. Where the collective
 * is too large to stay in the cache, the results are written there with non-temporal stores, which skip reading the
 * destination lines into the cache before overwriting them. The narrow floating types, and every type where the
 * library does not load, are reduced here in Java.
 */
public final class Kernels {
    /** Elements per pass: the scratch arrays of one thread stay in the core's caches. */
    private static final int CHUNK = 2048;
    /** A {@link ByteBuffer} view spans at most this much; longer arrays are processed in slices. */
    private static final long MAX_VIEW_BYTES = 1L << 30;

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);
    /** Whether reductions may use {@link NativeKernels}; see {@link #useNativeKernels}. */
    private static volatile boolean nativeAllowed = true;

    private Kernels() {}

    /**
     * dst[i] = sources[0][i] ⊕ sources[1][i] ⊕ ... for i &lt; count (element offsets, addresses are raw native
     * addresses of element 0). dst may equal any source (in place). Thread-safe for disjoint dst ranges. See the
     * class comment for rounding, NaN and AVG.
     */
    public static void reduce(DataType type, ReduceOp op, long[] sources, long destination, long count) {
        reduce(type, op, sources, new long[] {destination}, count);
    }

    /**
     * As {@link #reduce(DataType, ReduceOp, long[], long, long)}, with the result written to every one of
     * {@code destinations} (each may be a source, in place; they must not overlap each other).
     */
    public static void reduce(DataType type, ReduceOp op, long[] sources, long[] destinations, long count) {
        if (!checkReduce(type, op, sources, destinations, count)) {
            return;
        }
        // A collective runs one such call per rank, on its share, and has as many ranks as sources: together they
        // touch about sources × (sources + destinations) × bytes.
        long bytes = count * type.size();
        boolean stream = (double) sources.length * (sources.length + destinations.length) * bytes
                >= NativeKernels.STREAM_MIN_BYTES;
        if (!(nativeAllowed && NativeKernels.reduce(type, op, sources, destinations, count, stream))) {
            reduceInJava(type, op, sources, destinations, count);
        }
    }

    /**
     * Lets reductions use the native kernels where they load (true, the default), or keeps every reduction in Java
     * (false): for benchmarks and tests that compare the two paths in one process. The results are the same.
     */
    public static void useNativeKernels(boolean allowed) {
        nativeAllowed = allowed;
    }

    /** Checks the arguments of a reduce; false when there is nothing to do. */
    private static boolean checkReduce(DataType type, ReduceOp op, long[] sources, long[] destinations, long count) {
        if (type == null || op == null || sources == null || destinations == null) {
            throw new NullPointerException("type, op, sources and destinations must be given");
        }
        if (!op.suits(type)) {
            throw new IllegalArgumentException(op + " needs a floating-point type, not " + type);
        }
        if (sources.length == 0) {
            throw new IllegalArgumentException("reduce needs at least one source");
        }
        if (count < 0) {
            throw new IllegalArgumentException("negative count " + count);
        }
        if (destinations.length == 0) {
            throw new IllegalArgumentException("reduce needs at least one destination");
        }
        if (count == 0) {
            return false;
        }
        for (long destination : destinations) {
            requireAddress(destination, "destination");
        }
        for (long source : sources) {
            requireAddress(source, "source");
        }
        return true;
    }

    /** The Java path of {@link #reduce(DataType, ReduceOp, long[], long[], long)}, on checked arguments. */
    static void reduceInJava(DataType type, ReduceOp op, long[] sources, long[] destinations, long count) {
        int size = type.size();
        long sliceElements = MAX_VIEW_BYTES / size;
        ByteBuffer[] in = new ByteBuffer[sources.length];
        ByteBuffer[] out = new ByteBuffer[destinations.length];
        for (long done = 0; done < count; done += sliceElements) {
            int n = (int) Math.min(sliceElements, count - done);
            long offset = done * size;
            for (int r = 0; r < sources.length; r++) {
                in[r] = view(sources[r] + offset, (long) n * size);
            }
            for (int d = 0; d < destinations.length; d++) {
                out[d] = view(destinations[d] + offset, (long) n * size);
            }
            switch (type) {
                case FLOAT64:
                    reduceDoubles(op, in, out, n);
                    break;
                case FLOAT32:
                case FLOAT16:
                case BFLOAT16:
                case FP8_E4M3:
                case FP8_E5M2:
                    reduceFloats(type, op, in, out, n);
                    break;
                case INT64:
                case UINT64:
                    reduceLongs(type, op, in, out, n);
                    break;
                default:
                    reduceInts(type, op, in, out, n);
                    break;
            }
        }
    }

    /** memmove of bytes: the ranges may overlap. */
    public static void copy(long source, long destination, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative byte count " + bytes);
        }
        if (bytes == 0 || source == destination) {
            return;
        }
        requireAddress(source, "source");
        requireAddress(destination, "destination");
        HostMemory.copy(source, destination, bytes);
    }

    // ---------------------------------------------------------------------------------------------------------
    // float family: FLOAT32 and the narrow formats, computed in float

    private static void reduceFloats(DataType type, ReduceOp op, ByteBuffer[] in, ByteBuffer[] out, int count) {
        Scratch scratch = SCRATCH.get();
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

    // ---------------------------------------------------------------------------------------------------------
    // FLOAT64, computed in double

    private static void reduceDoubles(ReduceOp op, ByteBuffer[] in, ByteBuffer[] out, int count) {
        Scratch scratch = SCRATCH.get();
        double[] acc = scratch.doubles;
        double[] x = scratch.moreDoubles;
        double scale = 1.0 / in.length;
        for (int start = 0; start < count; start += CHUNK) {
            int n = Math.min(CHUNK, count - start);
            in[0].asDoubleBuffer().get(start, acc, 0, n);
            if (op == ReduceOp.AVG) {
                scale(acc, n, scale);
            }
            for (int r = 1; r < in.length; r++) {
                in[r].asDoubleBuffer().get(start, x, 0, n);
                if (op == ReduceOp.AVG) {
                    scale(x, n, scale);
                }
                combine(op, acc, x, n);
            }
            for (ByteBuffer destination : out) {
                destination.asDoubleBuffer().put(start, acc, 0, n);
            }
        }
    }

    private static void scale(double[] values, int n, double scalar) {
        for (int i = 0; i < n; i++) {
            values[i] *= scalar;
        }
    }

    private static void combine(ReduceOp op, double[] acc, double[] x, int n) {
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
                    acc[i] = Double.isNaN(acc[i]) ? x[i] : Double.isNaN(x[i]) ? acc[i] : Math.min(acc[i], x[i]);
                }
                break;
            case MAX:
                for (int i = 0; i < n; i++) {
                    acc[i] = Double.isNaN(acc[i]) ? x[i] : Double.isNaN(x[i]) ? acc[i] : Math.max(acc[i], x[i]);
                }
                break;
            default:
                throw new AssertionError(op);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // integers: INT8, UINT8, INT32 and UINT32 computed in int, INT64 and UINT64 in long. Sums and products wrap;
    // the narrow types are loaded sign- or zero-extended and stored by keeping the low bits, so a signed comparison
    // orders UINT8 correctly and only UINT32 and UINT64 need unsigned comparison.

    private static void reduceInts(DataType type, ReduceOp op, ByteBuffer[] in, ByteBuffer[] out, int count) {
        Scratch scratch = SCRATCH.get();
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

    private static void reduceLongs(DataType type, ReduceOp op, ByteBuffer[] in, ByteBuffer[] out, int count) {
        Scratch scratch = SCRATCH.get();
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

    // ---------------------------------------------------------------------------------------------------------
    // memory

    /** Per-thread work arrays, so concurrent calls on disjoint ranges share nothing. */
    private static final class Scratch {
        final float[] floats = new float[CHUNK];
        final float[] moreFloats = new float[CHUNK];
        final double[] doubles = new double[CHUNK];
        final double[] moreDoubles = new double[CHUNK];
        final long[] longs = new long[CHUNK];
        final long[] moreLongs = new long[CHUNK];
        final int[] ints = new int[CHUNK];
        final int[] moreInts = new int[CHUNK];
        final short[] shorts = new short[CHUNK];
        final byte[] bytes = new byte[CHUNK];
    }

    private static void requireAddress(long address, String what) {
        if (address == 0) {
            throw new IllegalArgumentException("null " + what + " address");
        }
    }

    /** A native-order buffer over {@code bytes} (at most {@link #MAX_VIEW_BYTES}) bytes at a raw address. */
    public static ByteBuffer view(long at, long bytes) {
        return HostMemory.view(at, bytes);
    }
}
