package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.bootstrap.GpuJob;
import dev.collectives.runtime.bootstrap.ProcessPerRankExtension;
import dev.collectives.runtime.bootstrap.TestRanks;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * What the {@code gpu} tests share: the backend under test ({@code COLLECTIVES_BACKEND}, default nccl, so the
 * same suite proves mccl through the forwarding library), their ranks, and host-side element encoding for
 * references. The ranks of a test are threads of one JVM, one device each; where this host has fewer devices than
 * {@link #RANKS}, or with {@code -Dcollectives.test.sharedGpu=true}, the classes and methods extended with {@link
 * ProcessesOnOneGpu} run each test as one process per rank, all on device 0.
 */
final class GpuFixture {
    /** The ranks of every test; the references below are those of two ranks. */
    static final int RANKS = 2;

    private GpuFixture() {}

    /**
     * Each test as {@link #RANKS} processes on device 0, each with its own host id so that the library connects
     * them through its socket transport (it refuses two ranks of one communicator on one device of one process),
     * where this host lacks a device per rank or {@code -Dcollectives.test.sharedGpu=true} says so.
     */
    static final class ProcessesOnOneGpu extends ProcessPerRankExtension {
        ProcessesOnOneGpu() {
            super(RANKS, backendName(), true, Duration.ofSeconds(30));
        }

        @Override
        protected boolean needsProcesses() {
            return GpuJob.SHARED_GPU
                    || NativeLibrary.require(backend().dialect()).deviceCount() < RANKS;
        }
    }

    /** The ranks of a test here: see {@link TestRanks}. */
    static TestRanks ranks() {
        return ranks(CommConfig.DEFAULT);
    }

    /** The ranks of a test here, their communicators made with {@code config}. */
    static TestRanks ranks(CommConfig config) {
        DeviceBackend backend = backend();
        return TestRanks.open(() -> backend.local(RANKS, config), bootstrap -> backend.join(bootstrap, config));
    }

    /** The device of a rank: its own in a cluster of this JVM, else the one its process joined on. */
    static int device(RankContext ctx) {
        return ctx instanceof JoinedRank ? ((JoinedRank) ctx).device() : ctx.rank();
    }

    /**
     * One eager allreduce, a body for every rank ({@code ranks.run(GpuFixture::warmUp)}), so that NCCL has set up
     * its connections before a test captures a graph (see
     * DeviceInitGpuTest#captureAsTheFirstCollectiveOfAFreshCommunicator).
     */
    static void warmUp(RankContext ctx) {
        try (DeviceBuffer b = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024)) {
            ctx.comm().allReduce(b, b, 1024, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
            ctx.stream().synchronize();
        }
    }

    static DeviceBackend backend() {
        return (DeviceBackend) Backends.get(backendName());
    }

    private static String backendName() {
        return System.getenv().getOrDefault("COLLECTIVES_BACKEND", "nccl");
    }

    /** Small values every type holds exactly, also after sum, prod, max, min, avg of two ranks. */
    static double input(int rank, int i) {
        return rank == 0 ? 1 + i % 2 : 1 + (i / 2) % 2;
    }

    static double reduce(ReduceOp op, double a, double b) {
        switch (op) {
            case SUM:
                return a + b;
            case PROD:
                return a * b;
            case MAX:
                return Math.max(a, b);
            case MIN:
                return Math.min(a, b);
            default:
                return (a + b) / 2;
        }
    }

    static byte[] encode(DataType type, double[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * type.size()).order(ByteOrder.nativeOrder());
        for (double v : values) {
            switch (type) {
                case INT8:
                case UINT8:
                    b.put((byte) v);
                    break;
                case INT32:
                case UINT32:
                    b.putInt((int) v);
                    break;
                case INT64:
                case UINT64:
                    b.putLong((long) v);
                    break;
                case FLOAT32:
                    b.putFloat((float) v);
                    break;
                case FLOAT64:
                    b.putDouble(v);
                    break;
                case FLOAT16:
                    b.putShort((short) small(v, 5, 10));
                    break;
                case BFLOAT16:
                    b.putShort((short) small(v, 8, 7));
                    break;
                case FP8_E4M3:
                    b.put((byte) small(v, 4, 3));
                    break;
                case FP8_E5M2:
                    b.put((byte) small(v, 5, 2));
                    break;
                default:
                    throw new IllegalArgumentException(type.toString());
            }
        }
        return b.array();
    }

    static double[] decode(DataType type, byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
        double[] values = new double[bytes.length / type.size()];
        for (int i = 0; i < values.length; i++) {
            switch (type) {
                case INT8:
                    values[i] = b.get();
                    break;
                case UINT8:
                    values[i] = b.get() & 0xff;
                    break;
                case INT32:
                case UINT32:
                    values[i] = b.getInt();
                    break;
                case INT64:
                case UINT64:
                    values[i] = b.getLong();
                    break;
                case FLOAT32:
                    values[i] = b.getFloat();
                    break;
                case FLOAT64:
                    values[i] = b.getDouble();
                    break;
                case FLOAT16:
                    values[i] = unsmall(b.getShort() & 0xffff, 5, 10);
                    break;
                case BFLOAT16:
                    values[i] = unsmall(b.getShort() & 0xffff, 8, 7);
                    break;
                case FP8_E4M3:
                    values[i] = unsmall(b.get() & 0xff, 4, 3);
                    break;
                case FP8_E5M2:
                    values[i] = unsmall(b.get() & 0xff, 5, 2);
                    break;
                default:
                    throw new IllegalArgumentException(type.toString());
            }
        }
        return values;
    }

    /** A positive normal value exactly representable with these exponent and mantissa bits. */
    static int small(double v, int exponentBits, int mantissaBits) {
        int exponent = Math.getExponent(v);
        double mantissa = v / Math.scalb(1.0, exponent) - 1;
        int bias = (1 << (exponentBits - 1)) - 1;
        return (exponent + bias) << mantissaBits | (int) Math.round(mantissa * (1 << mantissaBits));
    }

    static double unsmall(int bits, int exponentBits, int mantissaBits) {
        int bias = (1 << (exponentBits - 1)) - 1;
        int exponent = bits >>> mantissaBits & ((1 << exponentBits) - 1);
        int mantissa = bits & ((1 << mantissaBits) - 1);
        if (exponent == 0 && mantissa == 0) {
            return 0;
        }
        return Math.scalb(1 + mantissa / (double) (1 << mantissaBits), exponent - bias);
    }

    static void fill(DeviceBuffer buffer, DataType type, double[] values) {
        buffer.copyFromHost(encode(type, values));
    }

    static double[] read(DeviceBuffer buffer, DataType type, int count) {
        byte[] bytes = new byte[count * type.size()];
        buffer.copyToHost(bytes);
        return decode(type, bytes);
    }

    static double[] inputs(int rank, int count) {
        double[] v = new double[count];
        for (int i = 0; i < count; i++) {
            v[i] = input(rank, i);
        }
        return v;
    }
}
