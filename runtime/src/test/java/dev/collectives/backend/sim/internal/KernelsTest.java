package dev.collectives.backend.sim.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Numerics;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.bytedeco.javacpp.BytePointer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every data type × reduce op, 1..8 sources, odd counts, in place and out of place, against a reference computed
 * here element by element in plain Java (Numerics only decodes and encodes single values).
 */
class KernelsTest {
    private static final int[] COUNTS = {0, 1, 7, 1023, 2049, 5000};

    private final List<BytePointer> allocations = new ArrayList<>();
    /** A native-order view of each allocation, by address, for fast element access in the test. */
    private final Map<Long, ByteBuffer> views = new HashMap<>();

    @AfterEach
    void free() {
        allocations.forEach(BytePointer::close);
        allocations.clear();
        views.clear();
    }

    static Stream<Arguments> everyTypeAndOp() {
        List<Arguments> cases = new ArrayList<>();
        for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                if (op.suits(type)) {
                    cases.add(Arguments.of(type, op));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyTypeAndOp")
    void reducesLikeTheReference(DataType type, ReduceOp op) {
        Random random = new Random(31L * type.ordinal() + op.ordinal());
        for (int sources = 1; sources <= 8; sources++) {
            for (int count : COUNTS) {
                long[][] raw = new long[sources][];
                long[] addresses = new long[sources];
                for (int r = 0; r < sources; r++) {
                    raw[r] = randomElements(type, op, count, random);
                    addresses[r] = allocate(type, raw[r]);
                }
                long[] expected = reference(type, op, raw, count);
                String what = type + " " + op + " sources=" + sources + " count=" + count;

                long destination = allocate(type, new long[count]);
                Kernels.reduce(type, op, addresses, destination, count);
                assertElements(type, expected, destination, what);
                for (int r = 0; r < sources; r++) {
                    assertElements(type, raw[r], addresses[r], what + ": source " + r + " untouched");
                }

                int inPlace = random.nextInt(sources);
                Kernels.reduce(type, op, addresses, addresses[inPlace], count);
                assertElements(type, expected, addresses[inPlace], what + " in place on source " + inPlace);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = DataType.class,
            names = {"INT8", "UINT8", "INT32", "UINT32", "INT64", "UINT64"})
    void avgOnIntegersIsRejected(DataType type) {
        long address = allocate(type, new long[4]);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.reduce(type, ReduceOp.AVG, new long[] {address, address}, address, 4));
        assertTrue(e.getMessage().contains(type.name()), e.getMessage());
    }

    @Test
    void badArgumentsAreRejected() {
        long address = allocate(DataType.FLOAT32, new long[4]);
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.reduce(DataType.FLOAT32, ReduceOp.SUM, new long[0], address, 4));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.reduce(DataType.FLOAT32, ReduceOp.SUM, new long[] {address}, address, -1));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.reduce(DataType.FLOAT32, ReduceOp.SUM, new long[] {0}, address, 4));
        assertThrows(
                IllegalArgumentException.class,
                () -> Kernels.reduce(DataType.FLOAT32, ReduceOp.SUM, new long[] {address}, 0, 4));
        assertThrows(IllegalArgumentException.class, () -> Kernels.copy(address, address + 4, -1));
        assertThrows(IllegalArgumentException.class, () -> Kernels.copy(0, address, 4));
    }

    @Test
    void floatMinAndMaxIgnoreNaNLikeFminf() {
        DataType type = DataType.FLOAT32;
        long nan = Float.floatToRawIntBits(Float.NaN);
        long one = Float.floatToRawIntBits(1f);
        long two = Float.floatToRawIntBits(2f);
        long a = allocate(type, new long[] {nan, one, nan, Float.floatToRawIntBits(-0f)});
        long b = allocate(type, new long[] {one, nan, nan, Float.floatToRawIntBits(0f)});
        long c = allocate(type, new long[] {two, two, nan, Float.floatToRawIntBits(-0f)});
        long destination = allocate(type, new long[4]);
        Kernels.reduce(type, ReduceOp.MIN, new long[] {a, b, c}, destination, 4);
        assertEquals(1f, Numerics.get(type, destination, 0));
        assertEquals(1f, Numerics.get(type, destination, 1));
        assertTrue(Double.isNaN(Numerics.get(type, destination, 2)));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(Numerics.get(type, destination, 3)));
        Kernels.reduce(type, ReduceOp.MAX, new long[] {a, b, c}, destination, 4);
        assertEquals(2f, Numerics.get(type, destination, 0));
        assertEquals(2f, Numerics.get(type, destination, 1));
        assertTrue(Double.isNaN(Numerics.get(type, destination, 2)));
        assertEquals(0.0, Numerics.get(type, destination, 3));
        assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(Numerics.get(type, destination, 3)));
    }

    @Test
    void avgScalesByTheScalarRoundedToTheTypeLikeNccl() {
        // three float16 ranks: NCCL's scalar is half(1/3) = 0x3555 = 0.33325195, not float's 0.33333334
        DataType type = DataType.FLOAT16;
        long x = 0x3C01; // 1.0009766
        long[] addresses = {
            allocate(type, new long[] {x}), allocate(type, new long[] {x}), allocate(type, new long[] {x})
        };
        long destination = allocate(type, new long[1]);
        Kernels.reduce(type, ReduceOp.AVG, addresses, destination, 1);
        float value = (float) Numerics.decode(type, x);
        float ncclTerm = roundTo(type, value * Numerics.fromFloat16((short) 0x3555));
        float floatTerm = roundTo(type, value * (1f / 3));
        assertTrue(ncclTerm != floatTerm, "the example separates the two scalars");
        float expected = roundTo(type, roundTo(type, ncclTerm + ncclTerm) + ncclTerm);
        assertEquals(expected, Numerics.get(type, destination, 0));
    }

    @Test
    void integersWrapAndCompareUnsigned() {
        long[] big = {0xFFL, 0x80L, 0x7FL};
        long[] one = {0x01L, 0x01L, 0x01L};
        long a = allocate(DataType.UINT8, big);
        long b = allocate(DataType.UINT8, one);
        long destination = allocate(DataType.UINT8, new long[3]);
        Kernels.reduce(DataType.UINT8, ReduceOp.SUM, new long[] {a, b}, destination, 3);
        assertEquals(0.0, Numerics.get(DataType.UINT8, destination, 0));
        Kernels.reduce(DataType.UINT8, ReduceOp.MAX, new long[] {a, b}, destination, 3);
        assertEquals(255.0, Numerics.get(DataType.UINT8, destination, 0));
        Kernels.reduce(DataType.INT8, ReduceOp.MAX, new long[] {a, b}, destination, 3);
        assertEquals(1.0, Numerics.get(DataType.INT8, destination, 0));
        long c = allocate(DataType.UINT64, new long[] {-1L});
        long d = allocate(DataType.UINT64, new long[] {1L});
        long destination64 = allocate(DataType.UINT64, new long[1]);
        Kernels.reduce(DataType.UINT64, ReduceOp.MIN, new long[] {c, d}, destination64, 1);
        assertEquals(1L, Numerics.getRaw(DataType.UINT64, destination64, 0));
        Kernels.reduce(DataType.INT64, ReduceOp.MIN, new long[] {c, d}, destination64, 1);
        assertEquals(-1L, Numerics.getRaw(DataType.INT64, destination64, 0));
    }

    @Test
    void concurrentCallsOnDisjointRanges() throws Exception {
        DataType type = DataType.FLOAT16;
        int count = 40_000;
        Random random = new Random(7);
        long[] x = randomElements(type, ReduceOp.SUM, count, random);
        long[] y = randomElements(type, ReduceOp.SUM, count, random);
        long a = allocate(type, x);
        long b = allocate(type, y);
        long destination = allocate(type, new long[count]);
        int parts = 4;
        int part = count / parts;
        ExecutorService pool = Executors.newFixedThreadPool(parts);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                long offset = (long) p * part * type.size();
                futures.add(pool.submit(() -> Kernels.reduce(
                        type, ReduceOp.SUM, new long[] {a + offset, b + offset}, destination + offset, part)));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdown();
        }
        assertElements(type, reference(type, ReduceOp.SUM, new long[][] {x, y}, count), destination, "concurrent");
    }

    @Test
    void copyIsMemmove() {
        int size = 10_000;
        byte[] bytes = new byte[size];
        new Random(3).nextBytes(bytes);
        try (BytePointer memory = new BytePointer(size)) {
            for (int[] move : new int[][] {
                {0, 100, 5000}, {100, 0, 5000}, {10, 11, 9000}, {11, 10, 9000}, {0, 5000, 5000}, {42, 42, 7}, {3, 9, 0}
            }) {
                memory.put(bytes);
                byte[] expected = bytes.clone();
                System.arraycopy(expected, move[0], expected, move[1], move[2]);
                Kernels.copy(memory.address() + move[0], memory.address() + move[1], move[2]);
                byte[] actual = new byte[size];
                memory.get(actual);
                assertTrue(
                        java.util.Arrays.equals(expected, actual),
                        () -> "copy from " + move[0] + " to " + move[1] + " of " + move[2]);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // reference, element by element

    private static long[] reference(DataType type, ReduceOp op, long[][] raw, int count) {
        long[] result = new long[count];
        for (int i = 0; i < count; i++) {
            long[] column = new long[raw.length];
            for (int r = 0; r < raw.length; r++) {
                column[r] = raw[r][i];
            }
            result[i] =
                    type.isFloatingPoint() ? referenceFloating(type, op, column) : referenceInteger(type, op, column);
        }
        return result;
    }

    private static long referenceFloating(DataType type, ReduceOp op, long[] column) {
        int n = column.length;
        if (type == DataType.FLOAT64) {
            double acc = Double.longBitsToDouble(column[0]);
            double scalar = 1.0 / n;
            if (op == ReduceOp.AVG) {
                acc *= scalar;
            }
            for (int r = 1; r < n; r++) {
                double x = Double.longBitsToDouble(column[r]);
                acc = op == ReduceOp.AVG ? acc + x * scalar : apply(op, acc, x);
            }
            return Double.doubleToRawLongBits(acc);
        }
        // the narrow types and float: float arithmetic, rounded to the type after every operation
        float scalar = roundTo(type, (float) (1.0 / n));
        float acc = (float) Numerics.decode(type, column[0]);
        if (op == ReduceOp.AVG) {
            acc = roundTo(type, acc * scalar);
        }
        for (int r = 1; r < n; r++) {
            float x = (float) Numerics.decode(type, column[r]);
            if (op == ReduceOp.AVG) {
                acc = roundTo(type, acc + roundTo(type, x * scalar));
            } else {
                acc = roundTo(type, (float) apply(op, acc, x));
            }
        }
        return Numerics.encode(type, acc);
    }

    /** One step in float or double; the float case is exact in double and then rounded once to float. */
    private static double apply(ReduceOp op, double a, double b) {
        switch (op) {
            case SUM:
                return a + b;
            case PROD:
                return a * b;
            case MIN:
                return Double.isNaN(a) ? b : Double.isNaN(b) ? a : (a < b || (a == b && isNegativeZero(a))) ? a : b;
            case MAX:
                return Double.isNaN(a) ? b : Double.isNaN(b) ? a : (a > b || (a == b && isNegativeZero(b))) ? a : b;
            default:
                throw new AssertionError(op);
        }
    }

    private static boolean isNegativeZero(double x) {
        return Double.doubleToRawLongBits(x) == Double.doubleToRawLongBits(-0.0);
    }

    private static float roundTo(DataType type, float value) {
        return (float) Numerics.decode(type, Numerics.encode(type, value));
    }

    private static long referenceInteger(DataType type, ReduceOp op, long[] column) {
        boolean unsigned = type.name().startsWith("UINT");
        BigInteger modulus = BigInteger.ONE.shiftLeft(8 * type.size());
        BigInteger acc = valueOf(column[0], type.size(), unsigned);
        for (int r = 1; r < column.length; r++) {
            BigInteger x = valueOf(column[r], type.size(), unsigned);
            switch (op) {
                case SUM:
                    acc = acc.add(x);
                    break;
                case PROD:
                    acc = acc.multiply(x);
                    break;
                case MIN:
                    acc = acc.min(x);
                    break;
                case MAX:
                    acc = acc.max(x);
                    break;
                default:
                    throw new AssertionError(op);
            }
        }
        return acc.mod(modulus).longValue();
    }

    /** The integer a raw element stands for, signed or unsigned. */
    private static BigInteger valueOf(long raw, int size, boolean unsigned) {
        BigInteger bits =
                BigInteger.valueOf(raw).and(BigInteger.ONE.shiftLeft(8 * size).subtract(BigInteger.ONE));
        if (!unsigned && bits.testBit(8 * size - 1)) {
            bits = bits.subtract(BigInteger.ONE.shiftLeft(8 * size));
        }
        return bits;
    }

    // ---------------------------------------------------------------------------------------------------------
    // data

    /**
     * Raw elements: for floating types mostly moderate values (so that sums and products stay informative), some
     * arbitrary bit patterns (NaN, infinities, subnormals, huge values), for integers arbitrary bits.
     */
    private static long[] randomElements(DataType type, ReduceOp op, int count, Random random) {
        long[] raw = new long[count];
        long mask = type.size() == 8 ? -1L : (1L << (8 * type.size())) - 1;
        for (int i = 0; i < count; i++) {
            if (!type.isFloatingPoint() || random.nextInt(20) == 0) {
                raw[i] = random.nextLong() & mask;
            } else {
                double magnitude = op == ReduceOp.PROD ? 0.5 + random.nextDouble() * 1.5 : random.nextDouble() * 16;
                raw[i] = Numerics.encode(type, random.nextBoolean() ? magnitude : -magnitude);
            }
        }
        return raw;
    }

    private long allocate(DataType type, long[] raw) {
        BytePointer memory = new BytePointer(Math.max(1, raw.length) * (long) type.size());
        allocations.add(memory);
        ByteBuffer view = memory.asByteBuffer().order(ByteOrder.nativeOrder());
        views.put(memory.address(), view);
        for (int i = 0; i < raw.length; i++) {
            switch (type.size()) {
                case 1:
                    view.put(i, (byte) raw[i]);
                    break;
                case 2:
                    view.putShort(2 * i, (short) raw[i]);
                    break;
                case 4:
                    view.putInt(4 * i, (int) raw[i]);
                    break;
                default:
                    view.putLong(8 * i, raw[i]);
                    break;
            }
        }
        return memory.address();
    }

    private long rawElement(DataType type, long address, int i) {
        ByteBuffer view = views.get(address);
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

    private void assertElements(DataType type, long[] expected, long address, String what) {
        for (int i = 0; i < expected.length; i++) {
            long actual = rawElement(type, address, i);
            if (type.isFloatingPoint() && Double.isNaN(Numerics.decode(type, expected[i]))) {
                assertTrue(Double.isNaN(Numerics.decode(type, actual)), what + " element " + i + ": NaN expected");
            } else if (actual != expected[i]) {
                assertEquals(
                        Long.toHexString(expected[i]),
                        Long.toHexString(actual),
                        what + " element " + i + ": expected " + Numerics.decode(type, expected[i]) + ", got "
                                + Numerics.decode(type, actual));
            }
        }
    }
}
