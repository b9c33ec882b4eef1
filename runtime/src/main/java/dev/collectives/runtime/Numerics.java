package dev.collectives.runtime;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.spi.HostMemory;
import java.nio.ByteBuffer;

/**
 * Conversions between {@code float}/{@code double} and the narrow floating-point formats of {@link DataType},
 * rounded as the GPU libraries round, and reads and writes of single elements of any {@link DataType} at a native
 * address.
 *
 * <p>Narrow values travel as their bit patterns ({@code short} for float16 and bfloat16, {@code byte} for fp8).
 * Every conversion to a narrow format rounds to nearest, ties to even, with subnormals handled exactly:
 * <ul>
 *   <li>float16 (1-5-10, IEEE binary16) and bfloat16 (1-8-7) overflow to infinity, like CUDA's
 *       {@code __float2half_rn} and {@code __float2bfloat16_rn}; NaN becomes the canonical {@code 0x7FFF}.</li>
 *   <li>fp8 e4m3 (1-4-3, bias 7) has no infinities: S.1111.111 is NaN, the largest finite value is 448.
 *       fp8 e5m2 (1-5-2, bias 15) is IEEE-like, the largest finite value is 57344. Both saturate: anything
 *       larger in magnitude than the largest finite value, infinities included, becomes ±that value, like the
 *       {@code __nv_fp8_e4m3(float)} and {@code __nv_fp8_e5m2(float)} constructors ({@code __NV_SATFINITE}).
 *       NaN becomes {@code 0x7F}.</li>
 * </ul>
 */
public final class Numerics {
    private Numerics() {}

    private static final int DOUBLE_MANTISSA_BITS = 52;
    private static final int DOUBLE_BIAS = 1023;
    private static final long DOUBLE_INFINITY = 0x7FF0_0000_0000_0000L;

    /** A binary floating-point format narrower than float, described by its field widths. */
    private enum NarrowFormat {
        FLOAT16(5, 10, true, false, 0x7FFF),
        BFLOAT16(8, 7, true, false, 0x7FFF),
        E4M3(4, 3, false, true, 0x7F),
        E5M2(5, 2, true, true, 0x7F);

        final int mantissaBits;
        final int bias;
        final int signBit;
        /** The bit pattern of the largest finite magnitude. */
        final int maxFiniteBits;
        /** Values beyond the largest finite one become it (fp8's SATFINITE) instead of infinity. */
        final boolean saturates;

        final int canonicalNaN;
        /** IEEE-like: the top exponent holds infinities and NaNs. e4m3 spends it on numbers, all but its NaN. */
        final boolean hasInfinities;

        NarrowFormat(int exponentBits, int mantissaBits, boolean hasInfinities, boolean saturates, int canonicalNaN) {
            this.mantissaBits = mantissaBits;
            this.bias = (1 << (exponentBits - 1)) - 1;
            this.signBit = 1 << (exponentBits + mantissaBits);
            this.hasInfinities = hasInfinities;
            int allOnesExponent = ((1 << exponentBits) - 1) << mantissaBits;
            this.maxFiniteBits = hasInfinities ? allOnesExponent - 1 : allOnesExponent | ((1 << mantissaBits) - 2);
            this.saturates = saturates;
            this.canonicalNaN = canonicalNaN;
        }

        /**
         * Rounds {@code value} to nearest even, once, and returns the bit pattern. Works on the double's bits: the
         * significand is shifted right by the bits the format lacks, rounding half to even; a carry out of the
         * significand moves into the exponent field by itself.
         */
        int encode(double value) {
            long bits = Double.doubleToRawLongBits(value);
            int sign = bits < 0 ? signBit : 0;
            long magnitude = bits & Long.MAX_VALUE;
            if (magnitude > DOUBLE_INFINITY) {
                return canonicalNaN;
            }
            int exponent = (int) (magnitude >>> DOUBLE_MANTISSA_BITS) - DOUBLE_BIAS;
            int dropped = DOUBLE_MANTISSA_BITS - mantissaBits;
            long rounded;
            if (exponent >= 1 - bias) {
                // a normal result (or an overflow): rebias the exponent field from double's to the format's
                rounded = shiftRoundingToEven(magnitude, dropped) - ((long) (DOUBLE_BIAS - bias) << mantissaBits);
            } else {
                // below the smallest normal: units of the smallest subnormal; 2^m units is the smallest normal
                int shift = dropped + (1 - bias - exponent);
                long significand = (magnitude & ((1L << DOUBLE_MANTISSA_BITS) - 1)) | (1L << DOUBLE_MANTISSA_BITS);
                // beyond 54 places even the largest significand (< 2^53) is under half a unit
                rounded = shift > 54 ? 0 : shiftRoundingToEven(significand, shift);
            }
            if (rounded > maxFiniteBits) {
                rounded = saturates ? maxFiniteBits : maxFiniteBits + 1; // maxFiniteBits + 1 is infinity
            }
            return sign | (int) rounded;
        }

        private static long shiftRoundingToEven(long value, int shift) {
            long half = 1L << (shift - 1);
            long odd = (value >>> shift) & 1;
            return (value + half - 1 + odd) >>> shift;
        }

        float decode(int bits) {
            int magnitudeBits = bits & (signBit - 1);
            int exponentField = magnitudeBits >>> mantissaBits;
            int mantissa = magnitudeBits & ((1 << mantissaBits) - 1);
            float magnitude;
            if (hasInfinities && magnitudeBits > maxFiniteBits) {
                magnitude = mantissa == 0 ? Float.POSITIVE_INFINITY : Float.NaN;
            } else if (!hasInfinities && magnitudeBits == (maxFiniteBits | 1)) {
                magnitude = Float.NaN;
            } else if (exponentField == 0) {
                magnitude = Math.scalb((float) mantissa, 1 - bias - mantissaBits);
            } else {
                magnitude = Math.scalb((float) ((1 << mantissaBits) | mantissa), exponentField - bias - mantissaBits);
            }
            return (bits & signBit) != 0 ? -magnitude : magnitude;
        }
    }

    private static final float[] FLOAT16_VALUES = table(NarrowFormat.FLOAT16, 1 << 16);
    private static final float[] E4M3_VALUES = table(NarrowFormat.E4M3, 1 << 8);
    private static final float[] E5M2_VALUES = table(NarrowFormat.E5M2, 1 << 8);

    private static float[] table(NarrowFormat format, int size) {
        float[] values = new float[size];
        for (int bits = 0; bits < size; bits++) {
            values[bits] = format.decode(bits);
        }
        return values;
    }

    /** The FLOAT16 bits nearest {@code value} (round to nearest even). */
    public static short toFloat16(float value) {
        return (short) NarrowFormat.FLOAT16.encode(value);
    }

    /** The value of FLOAT16 {@code bits}. */
    public static float fromFloat16(short bits) {
        return FLOAT16_VALUES[bits & 0xFFFF];
    }

    /** The BFLOAT16 bits nearest {@code value} (round to nearest even). */
    public static short toBfloat16(float value) {
        return (short) NarrowFormat.BFLOAT16.encode(value);
    }

    /** The value of BFLOAT16 {@code bits}. */
    public static float fromBfloat16(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** The FP8_E4M3 bits nearest {@code value} (round to nearest even, saturating). */
    public static byte toFp8E4M3(float value) {
        return (byte) NarrowFormat.E4M3.encode(value);
    }

    /** The value of FP8_E4M3 {@code bits}. */
    public static float fromFp8E4M3(byte bits) {
        return E4M3_VALUES[bits & 0xFF];
    }

    /** The FP8_E5M2 bits nearest {@code value} (round to nearest even). */
    public static byte toFp8E5M2(float value) {
        return (byte) NarrowFormat.E5M2.encode(value);
    }

    /** The value of FP8_E5M2 {@code bits}. */
    public static float fromFp8E5M2(byte bits) {
        return E5M2_VALUES[bits & 0xFF];
    }

    /**
     * The value of an element given its raw bits (the low {@code type.size()} bytes of {@code rawBits}).
     * Unsigned types read as unsigned; UINT64 and INT64 values beyond 2^53 are rounded to double.
     */
    public static double decode(DataType type, long rawBits) {
        switch (type) {
            case INT8:
                return (byte) rawBits;
            case UINT8:
                return rawBits & 0xFFL;
            case INT32:
                return (int) rawBits;
            case UINT32:
                return rawBits & 0xFFFF_FFFFL;
            case INT64:
                return rawBits;
            case UINT64:
                return unsignedToDouble(rawBits);
            case FLOAT16:
                return fromFloat16((short) rawBits);
            case FLOAT32:
                return Float.intBitsToFloat((int) rawBits);
            case FLOAT64:
                return Double.longBitsToDouble(rawBits);
            case BFLOAT16:
                return fromBfloat16((short) rawBits);
            case FP8_E4M3:
                return fromFp8E4M3((byte) rawBits);
            case FP8_E5M2:
                return fromFp8E5M2((byte) rawBits);
            default:
                throw new AssertionError(type);
        }
    }

    /**
     * The raw bits (zero-extended) of {@code value} as an element of {@code type}. Floating types round to nearest
     * even, once (narrow formats directly from the double, as described in the class comment); integer types
     * truncate toward zero and wrap modulo 2^width (NaN becomes 0).
     */
    public static long encode(DataType type, double value) {
        switch (type) {
            case FLOAT16:
                return NarrowFormat.FLOAT16.encode(value);
            case FLOAT32:
                return Float.floatToRawIntBits((float) value) & 0xFFFF_FFFFL;
            case FLOAT64:
                return Double.doubleToRawLongBits(value);
            case BFLOAT16:
                return NarrowFormat.BFLOAT16.encode(value);
            case FP8_E4M3:
                return NarrowFormat.E4M3.encode(value);
            case FP8_E5M2:
                return NarrowFormat.E5M2.encode(value);
            default:
                return truncateToLong(value) & (type.size() == 8 ? -1L : (1L << (8 * type.size())) - 1);
        }
    }

    /** Reads element {@code index} of an array of {@code type} whose element 0 is at the native {@code address}. */
    public static double get(DataType type, long address, long index) {
        return decode(type, getRaw(type, address, index));
    }

    /** Writes element {@code index}, rounded or wrapped to {@code type} as {@link #encode} does. */
    public static void put(DataType type, long address, long index, double value) {
        putRaw(type, address, index, encode(type, value));
    }

    /** The raw bits of element {@code index}, zero-extended. */
    public static long getRaw(DataType type, long address, long index) {
        ByteBuffer element = element(type, address, index);
        switch (type.size()) {
            case 1:
                return element.get(0) & 0xFFL;
            case 2:
                return element.getShort(0) & 0xFFFFL;
            case 4:
                return element.getInt(0) & 0xFFFF_FFFFL;
            default:
                return element.getLong(0);
        }
    }

    /** Writes the low {@code type.size()} bytes of {@code rawBits} as element {@code index}. */
    public static void putRaw(DataType type, long address, long index, long rawBits) {
        ByteBuffer element = element(type, address, index);
        switch (type.size()) {
            case 1:
                element.put(0, (byte) rawBits);
                break;
            case 2:
                element.putShort(0, (short) rawBits);
                break;
            case 4:
                element.putInt(0, (int) rawBits);
                break;
            default:
                element.putLong(0, rawBits);
                break;
        }
    }

    private static ByteBuffer element(DataType type, long address, long index) {
        if (address == 0) {
            throw new IllegalArgumentException("null address");
        }
        return HostMemory.view(address + index * type.size(), type.size());
    }

    private static double unsignedToDouble(long bits) {
        // exact halving keeps the rounding of the final doubling single
        return bits >= 0 ? bits : ((bits >>> 1) | (bits & 1)) * 2.0;
    }

    private static long truncateToLong(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return 0;
        }
        double wrapped = value % 0x1p64; // exact: the remainder of two doubles is representable
        if (wrapped >= 0x1p63) {
            wrapped -= 0x1p64;
        } else if (wrapped < -0x1p63) {
            wrapped += 0x1p64;
        }
        return (long) wrapped;
    }
}
