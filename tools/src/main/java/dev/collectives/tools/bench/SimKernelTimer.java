package dev.collectives.tools.bench;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.internal.Kernels;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import org.bytedeco.javacpp.Pointer;

/**
 * The reduction alone, without the collective around it: one thread per rank reduces that rank's share of an
 * allreduce (float32 sum, out of place) with {@link Kernels#reduce}, split as the sim backend splits it, all ranks
 * at once; so that an allreduce's time divides into the kernel and what the call costs around it (rendezvous,
 * barrier, hand-off to the stream's thread).
 */
final class SimKernelTimer implements AutoCloseable {
    private final int ranks;
    private final long count;
    private final Pointer[] buffers;
    private final long[] sends;
    private final long[] recvs;

    /** Allocates {@code ranks} send buffers, filled, and as many recv buffers, of {@code bytes} each. */
    SimKernelTimer(int ranks, long bytes) {
        this.ranks = ranks;
        this.count = bytes / Float.BYTES;
        this.buffers = new Pointer[2 * ranks];
        this.sends = new long[ranks];
        this.recvs = new long[ranks];
        for (int r = 0; r < ranks; r++) {
            buffers[r] = Pointer.calloc(bytes, 1);
            buffers[ranks + r] = Pointer.calloc(bytes, 1);
            if (buffers[r] == null || buffers[ranks + r] == null) {
                close();
                throw new OutOfMemoryError("no host memory for " + 2 * ranks + " buffers of " + bytes + " bytes");
            }
            Pointer.memset(buffers[r], 0x3F, bytes); // data (0.747f each), not the zero page
            sends[r] = buffers[r].address();
            recvs[r] = buffers[ranks + r].address();
        }
    }

    /**
     * Seconds per reduce of the slowest rank, the mean over {@code iterations} (after one untimed), with the native
     * kernels or in Java; the ranks start every reduce together.
     */
    double seconds(boolean nativeKernels, int iterations) {
        Kernels.useNativeKernels(nativeKernels);
        CyclicBarrier together = new CyclicBarrier(ranks);
        long[] nanos = new long[ranks];
        RuntimeException[] failures = new RuntimeException[ranks];
        Thread[] threads = new Thread[ranks];
        for (int r = 0; r < ranks; r++) {
            int rank = r;
            threads[r] = new Thread(
                    () -> {
                        try {
                            nanos[rank] = reduceShare(rank, iterations, together);
                        } catch (RuntimeException e) {
                            failures[rank] = e;
                            together.reset(); // the others stop waiting for this rank
                        }
                    },
                    "kernel-" + r);
            threads[r].start();
        }
        long slowest = 0;
        for (int r = 0; r < ranks; r++) {
            join(threads[r]);
            slowest = Math.max(slowest, nanos[r]);
        }
        for (RuntimeException failure : failures) {
            if (failure != null) {
                throw failure;
            }
        }
        return slowest / 1e9 / iterations;
    }

    /** Rank {@code rank}'s timed reduces: slice {@code rank} of every send into slice {@code rank} of every recv. */
    private long reduceShare(int rank, int iterations, CyclicBarrier together) {
        long base = count / ranks;
        long remainder = count % ranks;
        long offset = (base * rank + Math.min(rank, remainder)) * Float.BYTES;
        long length = base + (rank < remainder ? 1 : 0);
        long[] sources = new long[ranks];
        long[] destinations = new long[ranks];
        for (int q = 0; q < ranks; q++) {
            sources[q] = sends[q] + offset;
            destinations[q] = recvs[q] + offset;
        }
        long nanos = 0;
        for (int i = -1; i < iterations; i++) {
            await(together);
            long t0 = System.nanoTime();
            Kernels.reduce(DataType.FLOAT32, ReduceOp.SUM, sources, destinations, length);
            if (i >= 0) {
                nanos += System.nanoTime() - t0;
            }
        }
        return nanos;
    }

    private static void await(CyclicBarrier barrier) {
        uninterrupted(() -> {
            try {
                barrier.await();
            } catch (BrokenBarrierException e) {
                throw new IllegalStateException("another rank's thread failed", e);
            }
        });
    }

    private static void join(Thread thread) {
        uninterrupted(thread::join);
    }

    /** A wait that the benchmark does not expect to be interrupted; an interrupt ends it with an exception. */
    private interface Wait {
        void run() throws InterruptedException;
    }

    private static void uninterrupted(Wait wait) {
        try {
            wait.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                Pointer.free(buffers[i]);
                buffers[i] = null;
            }
        }
    }
}
