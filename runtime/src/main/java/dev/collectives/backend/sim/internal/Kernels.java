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
 * library does not load, are reduced in Java, one class per family of types ({@link FloatReductions},
 * {@link DoubleReductions}, {@link IntegerReductions}), with per-thread work arrays ({@link Scratch}).
 */
public final class Kernels {
    /** A {@link ByteBuffer} view spans at most this much; longer arrays are processed in slices. */
    private static final long MAX_VIEW_BYTES = 1L << 30;
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
                    DoubleReductions.reduce(op, in, out, n);
                    break;
                case FLOAT32:
                case FLOAT16:
                case BFLOAT16:
                case FP8_E4M3:
                case FP8_E5M2:
                    FloatReductions.reduce(type, op, in, out, n);
                    break;
                case INT64:
                case UINT64:
                    IntegerReductions.reduceLongs(type, op, in, out, n);
                    break;
                default:
                    IntegerReductions.reduceInts(type, op, in, out, n);
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
