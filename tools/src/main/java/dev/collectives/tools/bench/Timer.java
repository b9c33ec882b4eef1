package dev.collectives.tools.bench;

import dev.collectives.runtime.Stream;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * Times ops on all ranks of a cluster together, each rank calling from its thread: a round starts at a barrier, and
 * its time per op is its slowest rank's wall clock from the first enqueue to the end of the stream's work; its host
 * time, the slowest rank's enqueue loop alone. Its static methods are what the benchmarks share around the timing:
 * the first warm-up, and the iterations per size.
 */
final class Timer {
    private static final int WARMUP = 5;
    private static final int FIRST_WARMUP = 3000;
    private static final long MIB = 1 << 20;

    private final int ranks;
    private final CyclicBarrier barrier;
    private final double[] elapsedUs;
    private final double[] enqueuedUs;
    private final long[][] counts;

    Timer(int ranks) {
        this.ranks = ranks;
        this.barrier = new CyclicBarrier(ranks);
        this.elapsedUs = new double[ranks];
        this.enqueuedUs = new double[ranks];
        this.counts = new long[ranks][2];
    }

    /** Iterations per size: many where an op takes microseconds, few where it takes milliseconds. */
    static int iterations(long bytes) {
        return bytes <= 64 * 1024 ? 1000 : bytes <= 64 * MIB ? 100 : 20;
    }

    /** Before any timing: the JIT compiles the call path meanwhile. */
    static void warmUp(Stream stream, Step step) {
        warmUp(stream, step.batch());
    }

    static void warmUp(Stream stream, Batch batch) {
        batch.issue(stream, FIRST_WARMUP);
        stream.synchronize();
    }

    /** {time per op, host enqueue time per op} in µs of the best of {@code rounds}; the same on every rank. */
    double[] time(int rank, Stream stream, Batch batch, int iters, int rounds) throws Exception {
        batch.issue(stream, WARMUP);
        stream.synchronize();
        double[] best = {Double.POSITIVE_INFINITY, 0};
        for (int round = 0; round < rounds; round++) {
            keepBest(best, round(rank, stream, batch, iters));
        }
        return best;
    }

    /** Java's and native's best ({@link #time}), their rounds alternating and each side first in turn. */
    double[][] timeBoth(int rank, Stream stream, Batch java, Batch nat, int iters, int rounds, boolean withNative)
            throws Exception {
        Batch[] batches = withNative ? new Batch[] {java, nat} : new Batch[] {java};
        for (Batch b : batches) {
            b.issue(stream, WARMUP);
        }
        stream.synchronize();
        double[][] best = {{Double.POSITIVE_INFINITY, 0}, {Double.POSITIVE_INFINITY, 0}};
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < batches.length; k++) {
                int side = (round + k) % batches.length;
                keepBest(best[side], round(rank, stream, batches[side], iters));
            }
        }
        return best;
    }

    private static void keepBest(double[] best, double[] round) {
        if (round[0] < best[0]) {
            best[0] = round[0];
            best[1] = round[1];
        }
    }

    private double[] round(int rank, Stream stream, Batch batch, int iters) throws Exception {
        await();
        long start = System.nanoTime();
        batch.issue(stream, iters);
        enqueuedUs[rank] = (System.nanoTime() - start) / 1e3 / iters;
        stream.synchronize();
        elapsedUs[rank] = (System.nanoTime() - start) / 1e3 / iters;
        await();
        double slowest = 0;
        double host = 0;
        for (int r = 0; r < ranks; r++) {
            slowest = Math.max(slowest, elapsedUs[r]);
            host = Math.max(host, enqueuedUs[r]);
        }
        await(); // every rank has read this round's figures before the next round writes them
        return new double[] {slowest, host};
    }

    /** The sums over all ranks of two counts; the same on every rank. */
    long[] sum(int rank, long a, long b) throws Exception {
        counts[rank][0] = a;
        counts[rank][1] = b;
        await();
        long[] sums = new long[2];
        for (long[] c : counts) {
            sums[0] += c[0];
            sums[1] += c[1];
        }
        await();
        return sums;
    }

    void await() throws Exception {
        barrier.await(120, TimeUnit.SECONDS);
    }
}
