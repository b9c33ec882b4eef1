package dev.collectives.backend.sim.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Numerics;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The native path of {@link Kernels#reduce} against its Java path, bit for bit but for which NaN comes out (C++ and
 * the JIT may swap the operands of a commutative instruction, and x86 keeps the first operand's NaN payload; the
 * Java path itself does not promise one either): every type × op the library takes, with and without streaming
 * stores, at sizes below and above a block, at addresses off every alignment, to several destinations, in place.
 * KernelsTest checks both against an independent reference through the public entry point.
 */
class NativeKernelsTest {
    /** Element counts: tiny, not a multiple of any vector or of the kernel's blocks, up to 512 KiB of int64. */
    private static final int[] COUNTS = {1, 3, 1029, 4099, 65541};
    /** Byte offsets from 64-byte aligned addresses: aligned, off the element size, off the 16-byte vectors. */
    private static final int[] OFFSETS = {0, 1, 4, 8, 13};

    private final List<BytePointer> allocations = new ArrayList<>();

    @AfterEach
    void free() {
        allocations.forEach(BytePointer::close);
        allocations.clear();
    }

    @Test
    void loadsOnTheLinuxPlatformsTheJarCarries() {
        String arch = System.getProperty("os.arch");
        boolean carried =
                System.getProperty("os.name").startsWith("Linux") && (arch.equals("amd64") || arch.equals("aarch64"));
        assumeTrue(carried, "the native kernels are built for Linux x86-64 and arm64");
        assertTrue(NativeKernels.loaded(), "the native kernels must load on Linux " + arch);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.collectives.backend.sim.internal.KernelsTest#everyTypeAndOp")
    void nativeMatchesJava(DataType type, ReduceOp op) {
        Random random = new Random(17L * type.ordinal() + op.ordinal());
        for (int count : COUNTS) {
            for (int offset : OFFSETS) {
                int sources = 1 + random.nextInt(9); // odd and even, up to 8 ranks and one more
                int destinations = 1 + random.nextInt(4);
                long bytes = count * type.size();
                long[] in = new long[sources];
                for (int r = 0; r < sources; r++) {
                    in[r] = randomRegion(type, bytes, offset, random);
                }
                long expected = randomRegion(type, bytes, offset, random);
                Kernels.reduceInJava(type, op, in, new long[] {expected}, count);
                for (boolean stream : new boolean[] {false, true}) {
                    long[] out = new long[destinations];
                    for (int d = 0; d < destinations; d++) {
                        out[d] = randomRegion(type, bytes, (offset + 3 * d) % 16, random);
                    }
                    String what = type + " " + op + " count=" + count + " offset=" + offset + " sources=" + sources
                            + " stream=" + stream;
                    if (!NativeKernels.reduce(type, op, in, out, count, stream)) {
                        assertTrue(!NativeKernels.loaded() || isNarrowFloat(type), what + ": declined");
                        return;
                    }
                    for (int d = 0; d < destinations; d++) {
                        assertSameElements(type, expected, out[d], count, what + " destination " + d);
                    }
                }
            }
        }
    }

    /** Through the public entry point: several destinations, one of them a source (in place), on either path. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.collectives.backend.sim.internal.KernelsTest#everyTypeAndOp")
    void severalDestinationsOneInPlace(DataType type, ReduceOp op) {
        severalDestinationsOneInPlace(type, op, new long[] {7, 4099});
    }

    /** As above, at a size where the public entry point chooses streaming stores (on this machine's cache). */
    @Test
    void streamsLargeCollectivesThroughThePublicEntry() {
        for (DataType type : new DataType[] {DataType.FLOAT32, DataType.INT64}) {
            long streamed = NativeKernels.STREAM_MIN_BYTES / (3 * (3 + 3)) / type.size() + 1; // 3 sources, 3 outs
            long count = Math.min(streamed, (64L << 20) / type.size());
            severalDestinationsOneInPlace(type, ReduceOp.MAX, new long[] {count});
        }
    }

    private void severalDestinationsOneInPlace(DataType type, ReduceOp op, long[] counts) {
        Random random = new Random(23L * type.ordinal() + op.ordinal());
        for (long count : counts) {
            long bytes = count * type.size();
            long[] in = new long[3];
            for (int r = 0; r < in.length; r++) {
                in[r] = randomRegion(type, bytes, 4 * r, random);
            }
            long expected = randomRegion(type, bytes, 0, random);
            Kernels.reduceInJava(type, op, in, new long[] {expected}, count);
            long[] out = {randomRegion(type, bytes, 8, random), in[1], randomRegion(type, bytes, 5, random)};
            Kernels.reduce(type, op, in, out, count);
            for (int d = 0; d < out.length; d++) {
                assertSameElements(
                        type, expected, out[d], count, type + " " + op + " count=" + count + " destination " + d);
            }
        }
    }

    private static boolean isNarrowFloat(DataType type) {
        return type.isFloatingPoint() && type.size() < 4;
    }

    /**
     * A region of {@code bytes} at {@code offset} bytes past a 64-byte boundary, filled with arbitrary bits, and
     * one element in 8 a special value (a zero of either sign, a NaN, an infinity, one) for the floating types.
     */
    private long randomRegion(DataType type, long bytes, int offset, Random random) {
        BytePointer memory = new BytePointer(bytes + 64 + offset);
        allocations.add(memory);
        long address = (memory.address() + 63 & -64L) + offset;
        ByteBuffer view = view(address, bytes);
        byte[] noise = new byte[(int) bytes];
        random.nextBytes(noise);
        view.put(0, noise);
        if (type.isFloatingPoint()) {
            long[] specials = {
                Numerics.encode(type, 0.0),
                Numerics.encode(type, -0.0),
                Numerics.encode(type, Double.NaN),
                Numerics.encode(type, Double.POSITIVE_INFINITY),
                Numerics.encode(type, 1.0)
            };
            int count = (int) (bytes / type.size());
            for (int k = 0; k < count / 8; k++) {
                put(type, view, random.nextInt(count), specials[random.nextInt(specials.length)]);
            }
        }
        return address;
    }

    private static void put(DataType type, ByteBuffer view, int i, long raw) {
        switch (type.size()) {
            case 1:
                view.put(i, (byte) raw);
                break;
            case 2:
                view.putShort(2 * i, (short) raw);
                break;
            case 4:
                view.putInt(4 * i, (int) raw);
                break;
            default:
                view.putLong(8 * i, raw);
                break;
        }
    }

    private static long get(DataType type, ByteBuffer view, int i) {
        switch (type.size()) {
            case 1:
                return view.get(i) & 0xFFL;
            case 2:
                return view.getShort(2 * i) & 0xFFFFL;
            case 4:
                return view.getInt(4 * i) & 0xFFFF_FFFFL;
            default:
                return view.getLong(8 * i);
        }
    }

    private static void assertSameElements(DataType type, long expected, long actual, long count, String what) {
        ByteBuffer want = view(expected, count * type.size());
        ByteBuffer got = view(actual, count * type.size());
        for (int i = 0; i < count; i++) {
            long a = get(type, want, i);
            long b = get(type, got, i);
            boolean bothNaN = type.isFloatingPoint()
                    && Double.isNaN(Numerics.decode(type, a))
                    && Double.isNaN(Numerics.decode(type, b));
            if (a != b && !bothNaN) {
                assertEquals(
                        Long.toHexString(a),
                        Long.toHexString(b),
                        what + " element " + i + ": expected " + Numerics.decode(type, a) + ", got "
                                + Numerics.decode(type, b));
            }
        }
    }

    private static ByteBuffer view(long at, long bytes) {
        return new Pointer() {
            {
                address = at;
                limit = bytes;
                capacity = bytes;
            }
        }.asByteBuffer().order(ByteOrder.nativeOrder());
    }
}
