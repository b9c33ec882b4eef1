package dev.collectives.examples.bench;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.Kernels;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Stream;

import org.bytedeco.javacpp.Pointer;

import java.util.Locale;

/**
 * nccl-tests-style figures for the embedded backend: allreduce (float32, sum, out of place) from 1 KiB to 256 MiB
 * at 2 and 4 ranks, and single-thread memcpy bandwidth measured in the same run for comparison. Each figure is the
 * best of {@value #TRIALS} trials, each the mean over several back-to-back operations (the same for memcpy), so
 * that other load on the machine disturbs the comparison less. busbw = algbw × 2(n−1)/n, as nccl-tests reports it.
 * Arguments (optional): the largest size in bytes, the rank counts ("2,4").
 */
public final class SimAllReduceBenchmark {
    private static final long MIN_BYTES = 1L << 10;
    private static final int TRIALS = 5;
    private static final double GB = 1e9;

    private SimAllReduceBenchmark() {
    }

    public static void main(String[] args) {
        long maxBytes = args.length > 0 ? Long.parseLong(args[0]) : 256L << 20;
        String[] rankCounts = (args.length > 1 ? args[1] : "2,4").split(",");
        long memcpyBytes = 64L << 20;
        System.out.printf(Locale.ROOT, "# single-thread memcpy of %d MiB: %.2f GB/s%n", memcpyBytes >> 20,
                memcpyBandwidth(memcpyBytes));
        for (String ranks : rankCounts) {
            allReduce(Integer.parseInt(ranks.trim()), maxBytes);
        }
    }

    /** Bytes copied per second by one thread. */
    static double memcpyBandwidth(long bytes) {
        Pointer src = Pointer.calloc(bytes, 1);
        Pointer dst = Pointer.calloc(bytes, 1);
        try {
            Kernels.copy(src.address(), dst.address(), bytes); // touch the pages
            double best = Double.MAX_VALUE;
            for (int trial = 0; trial < TRIALS; trial++) {
                int copies = 10;
                long t0 = System.nanoTime();
                for (int i = 0; i < copies; i++) {
                    Kernels.copy(src.address(), dst.address(), bytes);
                }
                best = Math.min(best, (System.nanoTime() - t0) / 1e9 / copies);
            }
            return bytes / best / GB;
        } finally {
            Pointer.free(src);
            Pointer.free(dst);
        }
    }

    static void allReduce(int ranks, long maxBytes) {
        System.out.printf(Locale.ROOT, "#%n# sim allreduce, float32 sum, out of place, %d ranks%n", ranks);
        System.out.printf(Locale.ROOT, "# %12s %12s %10s %12s %12s%n", "size(B)", "count", "time(us)", "algbw(GB/s)",
                "busbw(GB/s)");
        double[][] trialSeconds = new double[TRIALS][ranks];
        try (LocalCluster cluster = Backends.get("sim").local(ranks)) {
            for (long bytes = MIN_BYTES; bytes <= maxBytes; bytes *= 2) {
                long count = bytes / 4;
                int iterations = (int) Math.max(10, Math.min(200, (1L << 30) / bytes));
                cluster.run(ctx -> {
                    Communicator comm = ctx.comm();
                    Stream stream = ctx.stream();
                    try (DeviceBuffer send = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, count);
                         DeviceBuffer recv = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, count)) {
                        for (int i = 0; i < 3; i++) { // warm up: touch the pages, wake the workers
                            comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream);
                        }
                        stream.synchronize();
                        for (int trial = 0; trial < TRIALS; trial++) {
                            long t0 = System.nanoTime();
                            for (int i = 0; i < iterations; i++) {
                                comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream);
                            }
                            stream.synchronize();
                            trialSeconds[trial][ctx.rank()] = (System.nanoTime() - t0) / 1e9 / iterations;
                        }
                    }
                });
                double seconds = Double.MAX_VALUE;
                for (double[] trial : trialSeconds) {
                    double slowestRank = 0;
                    for (double s : trial) {
                        slowestRank = Math.max(slowestRank, s);
                    }
                    seconds = Math.min(seconds, slowestRank);
                }
                double algbw = bytes / seconds / GB;
                double busbw = algbw * 2 * (ranks - 1) / ranks;
                System.out.printf(Locale.ROOT, "  %12d %12d %10.1f %12.2f %12.2f%n", bytes, count, seconds * 1e6,
                        algbw, busbw);
            }
        }
    }
}
