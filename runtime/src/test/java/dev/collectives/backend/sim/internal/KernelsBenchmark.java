package dev.collectives.backend.sim.internal;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import java.util.Arrays;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FloatPointer;

/**
 * Single-thread bandwidth of the sim kernels: {@link Kernels#copy} (memcpy) and float32 SUM of two sources, out
 * of place and in place, at 1, 32, 64 (the sim allreduce target's size) and 256 MiB per buffer; then SUM of two
 * sources for every data type at 32 MiB. "copied" is bytes copied per second (how memcpy is usually quoted);
 * "traffic" counts the bytes read plus the bytes written (memcpy of n bytes moves 2n, a 2-source reduce 3n), so
 * that copy and reduce compare. 1 GB = 10^9 bytes; each figure is the best of several timed runs.
 * Run: {@code java -cp <test classpath> dev.collectives.backend.sim.internal.KernelsBenchmark [MiB ...]}.
 */
public final class KernelsBenchmark {
    private static final double MIN_SECONDS = 1.0;

    private KernelsBenchmark() {}

    public static void main(String[] args) {
        long[] sizesMiB = args.length == 0 ? new long[] {1, 32, 64, 256} : parse(args);
        System.out.printf(
                "%6s %14s %14s %14s %14s %12s%n",
                "MiB", "memcpy copied", "memcpy traffic", "sum2 traffic", "in-place sum2", "sum2/memcpy");
        for (long mib : sizesMiB) {
            long bytes = mib << 20;
            long count = bytes / DataType.FLOAT32.size();
            try (BytePointer a = new BytePointer(bytes);
                    BytePointer b = new BytePointer(bytes);
                    BytePointer c = new BytePointer(bytes)) {
                fill(a, count, 1f);
                fill(b, count, 2f);
                fill(c, count, 0f);
                long x = a.address();
                long y = b.address();
                long z = c.address();
                double copy = 2.0 * bytes / best(() -> Kernels.copy(x, z, bytes));
                double sum = 3.0
                        * bytes
                        / best(() -> Kernels.reduce(DataType.FLOAT32, ReduceOp.SUM, new long[] {x, y}, z, count));
                // in place adds into a, whose values then grow; float sums stay finite over the runs timed here
                double inPlace = 3.0
                        * bytes
                        / best(() -> Kernels.reduce(DataType.FLOAT32, ReduceOp.SUM, new long[] {x, y}, x, count));
                System.out.printf(
                        "%6d %14.2f %14.2f %14.2f %14.2f %12.2f%n",
                        mib, copy / 2e9, copy / 1e9, sum / 1e9, inPlace / 1e9, sum / copy);
            }
        }
        long bytes = 32L << 20;
        System.out.printf("%nSUM of 2 sources, 32 MiB per buffer%n%10s %14s %14s%n", "type", "traffic GB/s", "Gelem/s");
        try (BytePointer a = new BytePointer(bytes);
                BytePointer b = new BytePointer(bytes);
                BytePointer c = new BytePointer(bytes)) {
            fill(a, bytes / 4, 1f);
            fill(b, bytes / 4, 2f);
            for (DataType type : DataType.values()) {
                long count = bytes / type.size();
                double seconds = best(() ->
                        Kernels.reduce(type, ReduceOp.SUM, new long[] {a.address(), b.address()}, c.address(), count));
                System.out.printf("%10s %14.2f %14.3f%n", type, 3.0 * bytes / seconds / 1e9, count / seconds / 1e9);
            }
        }
    }

    /** The shortest time of one run, in seconds, after warm-up, over at least {@link #MIN_SECONDS}. */
    private static double best(Runnable work) {
        for (int i = 0; i < 3; i++) {
            work.run();
        }
        double best = Double.MAX_VALUE;
        long start = System.nanoTime();
        int runs = 0;
        while (runs < 5 || System.nanoTime() - start < MIN_SECONDS * 1e9) {
            long t0 = System.nanoTime();
            work.run();
            best = Math.min(best, (System.nanoTime() - t0) / 1e9);
            runs++;
        }
        return best;
    }

    private static void fill(BytePointer memory, long count, float value) {
        float[] chunk = new float[1 << 16];
        Arrays.fill(chunk, value);
        FloatPointer floats = new FloatPointer(memory);
        for (long i = 0; i < count; i += chunk.length) {
            floats.position(i).put(chunk, 0, (int) Math.min(chunk.length, count - i));
        }
    }

    private static long[] parse(String[] args) {
        long[] sizes = new long[args.length];
        for (int i = 0; i < args.length; i++) {
            sizes[i] = Long.parseLong(args[i]);
        }
        return sizes;
    }
}
