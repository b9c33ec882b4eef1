package dev.collectives.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.DataType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bytedeco.javacpp.BytePointer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Checks the conversions against the formats' definitions: an independent decoder written from the field layout,
 * exhaustive checks over every bit pattern, every midpoint between neighbouring values, random floats against a
 * BigDecimal nearest-even search, and known values.
 */
class NumericsTest {

    /** A narrow format as the test understands it, written from the format definitions. */
    enum Format {
        FLOAT16(5, 10, true, false),
        BFLOAT16(8, 7, true, false),
        E4M3(4, 3, false, true),
        E5M2(5, 2, true, true);

        final int exponentBits;
        final int mantissaBits;
        final boolean ieeeSpecials;
        final boolean saturates;

        Format(int exponentBits, int mantissaBits, boolean ieeeSpecials, boolean saturates) {
            this.exponentBits = exponentBits;
            this.mantissaBits = mantissaBits;
            this.ieeeSpecials = ieeeSpecials;
            this.saturates = saturates;
        }

        int patterns() {
            return 1 << (1 + exponentBits + mantissaBits);
        }

        int bias() {
            return (1 << (exponentBits - 1)) - 1;
        }

        /** Decodes by the textbook formula, in double (exact for these formats). */
        double reference(int bits) {
            int mantissa = bits & ((1 << mantissaBits) - 1);
            int exponent = (bits >>> mantissaBits) & ((1 << exponentBits) - 1);
            boolean negative = (bits >>> (exponentBits + mantissaBits) & 1) != 0;
            int maxExponent = (1 << exponentBits) - 1;
            double magnitude;
            if (ieeeSpecials && exponent == maxExponent) {
                magnitude = mantissa == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
            } else if (!ieeeSpecials && exponent == maxExponent && mantissa == (1 << mantissaBits) - 1) {
                magnitude = Double.NaN;
            } else if (exponent == 0) {
                magnitude = mantissa * Math.pow(2, 1 - bias() - mantissaBits);
            } else {
                magnitude = (1 + mantissa / Math.pow(2, mantissaBits)) * Math.pow(2, exponent - bias());
            }
            return negative ? -magnitude : magnitude;
        }

        int toBits(float value) {
            switch (this) {
                case FLOAT16:
                    return Numerics.toFloat16(value) & 0xFFFF;
                case BFLOAT16:
                    return Numerics.toBfloat16(value) & 0xFFFF;
                case E4M3:
                    return Numerics.toFp8E4M3(value) & 0xFF;
                default:
                    return Numerics.toFp8E5M2(value) & 0xFF;
            }
        }

        float fromBits(int bits) {
            switch (this) {
                case FLOAT16:
                    return Numerics.fromFloat16((short) bits);
                case BFLOAT16:
                    return Numerics.fromBfloat16((short) bits);
                case E4M3:
                    return Numerics.fromFp8E4M3((byte) bits);
                default:
                    return Numerics.fromFp8E5M2((byte) bits);
            }
        }

        private List<Integer> finite;

        /** Non-negative finite patterns in increasing order of value. */
        List<Integer> finiteNonNegative() {
            if (finite != null) {
                return finite;
            }
            List<Integer> result = new ArrayList<>();
            for (int bits = 0; bits < patterns() / 2; bits++) {
                double value = reference(bits);
                if (!Double.isNaN(value) && !Double.isInfinite(value)) {
                    result.add(bits);
                }
            }
            finite = result;
            return result;
        }

        /** The pattern expected for {@code value}: nearest, ties to even, overflow by the format's rule. */
        int expected(double value) {
            if (Double.isNaN(value)) {
                return -1; // any NaN
            }
            int sign = (Double.doubleToRawLongBits(value) < 0) ? 1 << (exponentBits + mantissaBits) : 0;
            List<Integer> finite = finiteNonNegative();
            BigDecimal magnitude = Double.isInfinite(value) ? null : new BigDecimal(Math.abs(value));
            int largest = finite.get(finite.size() - 1);
            BigDecimal max = new BigDecimal(reference(largest));
            if (magnitude == null || magnitude.compareTo(max) > 0) {
                if (saturates) {
                    return sign | largest;
                }
                // beyond max: the next binade's first value 2^(emax+1) is infinity; the tie goes to it (max is odd)
                BigDecimal ulp = new BigDecimal(Math.pow(2, (1 << (exponentBits - 1)) - 1 - mantissaBits));
                BigDecimal midpoint = max.add(ulp.divide(BigDecimal.valueOf(2)));
                return sign | (magnitude != null && magnitude.compareTo(midpoint) < 0 ? largest : largest + 1);
            }
            // the first value at or above the magnitude (values ascend with their patterns), and the one before
            int first = 0;
            int last = finite.size() - 1;
            while (first < last) {
                int middle = (first + last) >>> 1;
                if (new BigDecimal(reference(finite.get(middle))).compareTo(magnitude) < 0) {
                    first = middle + 1;
                } else {
                    last = middle;
                }
            }
            int above = first;
            int below = Math.max(0, first - 1);
            int low = finite.get(below);
            int high = finite.get(above);
            int order = new BigDecimal(reference(low))
                    .subtract(magnitude)
                    .abs()
                    .compareTo(
                            new BigDecimal(reference(high)).subtract(magnitude).abs());
            int nearest = order < 0 ? low : order > 0 ? high : (low & 1) == 0 ? low : high;
            return sign | nearest;
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void decodingMatchesTheFormatDefinitionForEveryPattern(Format format) {
        for (int bits = 0; bits < format.patterns(); bits++) {
            double expected = format.reference(bits);
            float actual = format.fromBits(bits);
            if (Double.isNaN(expected)) {
                assertTrue(Float.isNaN(actual), () -> format + " NaN pattern decodes to " + actual);
            } else {
                int b = bits;
                assertEquals(
                        Double.doubleToRawLongBits(expected),
                        Double.doubleToRawLongBits(actual),
                        () -> format + " pattern " + Integer.toHexString(b));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void everyPatternRoundTrips(Format format) {
        for (int bits = 0; bits < format.patterns(); bits++) {
            float value = format.fromBits(bits);
            int back = format.toBits(value);
            if (Float.isNaN(value)) {
                assertTrue(Float.isNaN(format.fromBits(back)), format + " NaN stays NaN");
            } else if (Float.isInfinite(value) && format.saturates) {
                assertEquals(
                        Math.copySign(format.fromBits(format.toBits(Float.MAX_VALUE)), value),
                        format.fromBits(back),
                        format + " saturates infinities");
            } else {
                assertEquals(bits, back, format + " pattern " + Integer.toHexString(bits));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void midpointsRoundToEvenAndTheirNeighboursToTheNearer(Format format) {
        List<Integer> finite = format.finiteNonNegative();
        int signBit = 1 << (format.exponentBits + format.mantissaBits);
        for (int k = 0; k + 1 < finite.size(); k++) {
            int low = finite.get(k);
            int high = finite.get(k + 1);
            float a = format.fromBits(low);
            float b = format.fromBits(high);
            float midpoint = a / 2 + b / 2; // exact: the formats have at most 11 significant bits
            assertEquals((double) a + b, 2.0 * midpoint);
            int even = (low & 1) == 0 ? low : high;
            assertEquals(even, format.toBits(midpoint), format + " midpoint " + midpoint);
            assertEquals(low, format.toBits(Math.nextDown(midpoint)), format + " below " + midpoint);
            assertEquals(high, format.toBits(Math.nextUp(midpoint)), format + " above " + midpoint);
            assertEquals(signBit | even, format.toBits(-midpoint), format + " midpoint " + -midpoint);
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void randomFloatsRoundToTheNearestValue(Format format) {
        Random random = new Random(format.ordinal());
        double largest = format.reference(
                format.finiteNonNegative().get(format.finiteNonNegative().size() - 1));
        int maxExponent = Math.getExponent(largest) + 2;
        int minExponent = 1 - format.bias() - format.mantissaBits - 2;
        for (int i = 0; i < 2000; i++) {
            int exponent = minExponent + random.nextInt(maxExponent - minExponent + 1);
            float value = Math.scalb(1 + random.nextFloat(), exponent) * (random.nextBoolean() ? 1 : -1);
            assertEquals(format.expected(value), format.toBits(value), format + " " + value);
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void randomDoublesRoundOnceToTheNearestValue(Format format) {
        DataType type = format == Format.FLOAT16
                ? DataType.FLOAT16
                : format == Format.BFLOAT16
                        ? DataType.BFLOAT16
                        : format == Format.E4M3 ? DataType.FP8_E4M3 : DataType.FP8_E5M2;
        Random random = new Random(100 + format.ordinal());
        double largest = format.reference(
                format.finiteNonNegative().get(format.finiteNonNegative().size() - 1));
        int maxExponent = Math.getExponent(largest) + 2;
        int minExponent = 1 - format.bias() - format.mantissaBits - 2;
        for (int i = 0; i < 2000; i++) {
            int exponent = minExponent + random.nextInt(maxExponent - minExponent + 1);
            double value = Math.scalb(1 + random.nextDouble(), exponent) * (random.nextBoolean() ? 1 : -1);
            assertEquals(format.expected(value), Numerics.encode(type, value), format + " " + value);
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void specialValues(Format format) {
        for (float value : new float[] {
            0f,
            -0f,
            Float.MIN_VALUE,
            -Float.MIN_VALUE,
            Float.MAX_VALUE,
            -Float.MAX_VALUE,
            Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY
        }) {
            assertEquals(format.expected(value), format.toBits(value), format + " " + value);
        }
        assertTrue(Float.isNaN(format.fromBits(format.toBits(Float.NaN))), format + " NaN");
        assertTrue(Float.isNaN(format.fromBits(format.toBits(Float.intBitsToFloat(0xFF800001)))), format + " -NaN");
    }

    @Test
    void float16KnownValues() {
        assertEquals(0x3C00, Numerics.toFloat16(1f));
        assertEquals((short) 0xC000, Numerics.toFloat16(-2f));
        assertEquals(0x2E66, Numerics.toFloat16(0.1f));
        assertEquals(0x7BFF, Numerics.toFloat16(65504f));
        assertEquals(0x7BFF, Numerics.toFloat16(65519.996f));
        assertEquals(0x7C00, Numerics.toFloat16(65520f)); // the midpoint to 2^16 ties away from the odd max
        assertEquals(0x0001, Numerics.toFloat16(0x1p-24f)); // smallest subnormal
        assertEquals(0x0000, Numerics.toFloat16(0x1p-25f)); // tie between 0 and 2^-24: even
        assertEquals(0x0001, Numerics.toFloat16(Math.nextUp(0x1p-25f)));
        assertEquals(0x0002, Numerics.toFloat16(0x1.8p-24f)); // tie between 1 and 2 units: even
        assertEquals(0x0400, Numerics.toFloat16(0x1p-14f)); // smallest normal
        assertEquals(0x7FFF, Numerics.toFloat16(Float.NaN)); // CUDA's canonical NaN
        assertEquals(65504f, Numerics.fromFloat16((short) 0x7BFF));
        assertEquals(0x1p-24f, Numerics.fromFloat16((short) 0x0001));
    }

    @Test
    void bfloat16KnownValues() {
        assertEquals(0x3F80, Numerics.toBfloat16(1f));
        assertEquals(0x3DCD, Numerics.toBfloat16(0.1f));
        assertEquals(0x3F80, Numerics.toBfloat16(Float.intBitsToFloat(0x3F808000))); // tie: even
        assertEquals(0x3F82, Numerics.toBfloat16(Float.intBitsToFloat(0x3F818000))); // tie: even, upwards
        assertEquals(0x3F81, Numerics.toBfloat16(Float.intBitsToFloat(0x3F808001)));
        assertEquals(0x7F80, Numerics.toBfloat16(Float.MAX_VALUE)); // overflows to infinity
        assertEquals(0x0001, Numerics.toBfloat16(Float.intBitsToFloat(0x00010000))); // subnormal
        assertEquals(0x7FFF, Numerics.toBfloat16(Float.NaN));
    }

    @Test
    void fp8E4M3KnownValues() {
        assertEquals(0x38, Numerics.toFp8E4M3(1f));
        assertEquals(0x7E, Numerics.toFp8E4M3(448f));
        assertEquals(0x7E, Numerics.toFp8E4M3(464f)); // beyond max: saturates, no NaN
        assertEquals(0x7E, Numerics.toFp8E4M3(1e30f));
        assertEquals(0x7E, Numerics.toFp8E4M3(Float.POSITIVE_INFINITY));
        assertEquals((byte) 0xFE, Numerics.toFp8E4M3(Float.NEGATIVE_INFINITY));
        assertEquals(0x7F, Numerics.toFp8E4M3(Float.NaN));
        assertEquals(0x01, Numerics.toFp8E4M3(0x1p-9f)); // smallest subnormal
        assertEquals(0x00, Numerics.toFp8E4M3(0x1p-10f)); // tie: even
        assertEquals((byte) 0x80, Numerics.toFp8E4M3(-0x1p-10f)); // keeps the sign
        assertEquals(0x08, Numerics.toFp8E4M3(0x1p-6f)); // smallest normal
        assertEquals(448f, Numerics.fromFp8E4M3((byte) 0x7E));
        assertEquals(240f, Numerics.fromFp8E4M3((byte) 0x77)); // S.1110.111: exponent 15 is not special
        assertTrue(Float.isNaN(Numerics.fromFp8E4M3((byte) 0x7F)));
        assertTrue(Float.isNaN(Numerics.fromFp8E4M3((byte) 0xFF)));
        assertEquals(256f, Numerics.fromFp8E4M3((byte) 0x78));
    }

    @Test
    void fp8E5M2KnownValues() {
        assertEquals(0x3C, Numerics.toFp8E5M2(1f));
        assertEquals(0x7B, Numerics.toFp8E5M2(57344f));
        assertEquals(0x7B, Numerics.toFp8E5M2(61440f)); // the midpoint to infinity saturates
        assertEquals(0x7B, Numerics.toFp8E5M2(Float.POSITIVE_INFINITY));
        assertEquals((byte) 0xFB, Numerics.toFp8E5M2(-1e20f));
        assertEquals(0x7F, Numerics.toFp8E5M2(Float.NaN));
        assertEquals(0x01, Numerics.toFp8E5M2(0x1p-16f));
        assertEquals(0x00, Numerics.toFp8E5M2(0x1p-17f));
        assertEquals(Float.POSITIVE_INFINITY, Numerics.fromFp8E5M2((byte) 0x7C));
        assertEquals(Float.NEGATIVE_INFINITY, Numerics.fromFp8E5M2((byte) 0xFC));
        for (int nan = 0x7D; nan <= 0x7F; nan++) {
            assertTrue(Float.isNaN(Numerics.fromFp8E5M2((byte) nan)));
        }
    }

    @Test
    void encodeAndDecodeEveryType() {
        assertEquals(0xFFL, Numerics.encode(DataType.INT8, -1));
        assertEquals(-1.0, Numerics.decode(DataType.INT8, 0xFF));
        assertEquals(255.0, Numerics.decode(DataType.UINT8, 0xFF));
        assertEquals(0x00L, Numerics.encode(DataType.UINT8, 256)); // wraps
        assertEquals(0xFFFF_FFFFL, Numerics.encode(DataType.INT32, -1));
        assertEquals(4294967295.0, Numerics.decode(DataType.UINT32, 0xFFFF_FFFFL));
        assertEquals(-1.0, Numerics.decode(DataType.INT32, 0xFFFF_FFFFL));
        assertEquals(0x1p64 - 0x1p11, Numerics.decode(DataType.UINT64, 0xFFFF_FFFF_FFFF_F800L));
        assertEquals(0x1p64, Numerics.decode(DataType.UINT64, -1L)); // nearest double
        assertEquals(0x8000_0000_0000_0000L, Numerics.encode(DataType.UINT64, 0x1p63));
        assertEquals(7L, Numerics.encode(DataType.INT64, 7.9)); // truncates toward zero
        assertEquals(-7L & 0xFF, Numerics.encode(DataType.INT8, -7.9));
        assertEquals(Float.floatToRawIntBits(0.1f), Numerics.encode(DataType.FLOAT32, 0.1));
        assertEquals(Double.doubleToRawLongBits(0.1), Numerics.encode(DataType.FLOAT64, 0.1));
        assertEquals(0x3C00L, Numerics.encode(DataType.FLOAT16, 1.0));
        assertEquals(0x3F80L, Numerics.encode(DataType.BFLOAT16, 1.0));
        assertEquals(0x38L, Numerics.encode(DataType.FP8_E4M3, 1.0));
        assertEquals(0x3CL, Numerics.encode(DataType.FP8_E5M2, 1.0));
        // narrow formats round the double once: 1 + 2^-11 + 2^-40 is above half16's midpoint, its float is on it
        assertEquals(0x3C01L, Numerics.encode(DataType.FLOAT16, 1 + 0x1p-11 + 0x1p-40));
        assertEquals(0x3C00L, Numerics.toFloat16((float) (1 + 0x1p-11 + 0x1p-40)) & 0xFFFF);
    }

    @ParameterizedTest
    @EnumSource(DataType.class)
    void getAndPutAtNativeAddresses(DataType type) {
        int count = 5;
        boolean unsigned = type.name().startsWith("UINT");
        double[] values = new double[count];
        try (BytePointer memory = new BytePointer(count * type.size())) {
            memory.fill(0);
            long address = memory.address();
            for (int i = 0; i < count; i++) {
                values[i] = unsigned ? i * 3 : i * 3 - 4;
                Numerics.put(type, address, i, values[i]);
            }
            for (int i = 0; i < count; i++) {
                assertEquals(values[i], Numerics.get(type, address, i), type + " element " + i);
                assertEquals(Numerics.encode(type, values[i]), Numerics.getRaw(type, address, i));
            }
            Numerics.putRaw(type, address, 2, 0);
            assertEquals(0.0, Numerics.get(type, address, 2));
            assertEquals(values[1], Numerics.get(type, address, 1), "the neighbours stay");
            assertEquals(values[3], Numerics.get(type, address, 3), "the neighbours stay");
        }
    }
}
