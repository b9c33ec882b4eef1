package dev.collectives.backend.sim.internal;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Numerics;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/**
 * Runs an allreduce and a reducescatter of every type × op on sim at 4 ranks, with finite values that depend on the
 * rank and the index, and prints whether the native kernels were used and a SHA-256 of every rank's results. Run in
 * a JVM of its own with {@code -Dcollectives.sim.kernels=java} it shows what the pure-Java path computes.
 */
final class FallbackProbe {
    static final int RANKS = 4;
    /** Elements per rank: several of the native kernels' blocks (NativeKernelsTest compares the kernels in depth). */
    private static final int COUNT = 1 << 12;

    private FallbackProbe() {}

    public static void main(String[] args) throws Exception {
        System.out.println("native kernels: " + NativeKernels.loaded());
        System.out.println("digest: " + digest());
    }

    /** The SHA-256 of every type × op's results, rank by rank. */
    static String digest() throws NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[][] results = new byte[RANKS][];
        try (LocalCluster cluster = SimBackend.cluster().ranks(RANKS).build()) {
            for (DataType type : DataType.values()) {
                for (ReduceOp op : ReduceOp.values()) {
                    if (!op.suits(type)) {
                        continue;
                    }
                    long bytes = (long) COUNT * type.size();
                    cluster.run(rank -> {
                        try (DeviceBuffer send = rank.comm().allocate(Allocator.MEM_ALLOC, type, COUNT);
                                DeviceBuffer all = rank.comm().allocate(Allocator.MEM_ALLOC, type, COUNT);
                                DeviceBuffer scattered =
                                        rank.comm().allocate(Allocator.MEM_ALLOC, type, COUNT / RANKS)) {
                            send.copyFromHost(values(type, op, rank.rank()));
                            rank.comm().allReduce(send, all, COUNT, type, op, rank.stream());
                            rank.comm().reduceScatter(send, scattered, COUNT / RANKS, type, op, rank.stream());
                            rank.stream().synchronize();
                            ByteBuffer out = ByteBuffer.allocateDirect((int) (bytes + bytes / RANKS));
                            all.copyToHost(out.slice(0, (int) bytes));
                            scattered.copyToHost(out.slice((int) bytes, (int) (bytes / RANKS)));
                            byte[] copy = new byte[out.capacity()];
                            out.get(0, copy);
                            results[rank.rank()] = copy;
                        }
                    });
                    for (byte[] result : results) {
                        sha.update(result);
                    }
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /**
     * Finite values in a range where PROD neither overflows the narrow floating types nor underflows to zero
     * everywhere: NaN payloads are the one thing the two paths may differ in.
     */
    private static ByteBuffer values(DataType type, ReduceOp op, int rank) {
        Random random = new Random(31L * rank + 7L * type.ordinal() + op.ordinal());
        ByteBuffer buffer = ByteBuffer.allocateDirect(COUNT * type.size()).order(ByteOrder.nativeOrder());
        for (int i = 0; i < COUNT; i++) {
            double value = op == ReduceOp.PROD ? 0.5 + random.nextDouble() : (random.nextDouble() - 0.5) * 64;
            long bits = type.isFloatingPoint() ? Numerics.encode(type, value) : random.nextLong();
            for (int b = 0; b < type.size(); b++) {
                buffer.put((byte) (bits >>> (8 * b)));
            }
        }
        return buffer.flip();
    }
}
