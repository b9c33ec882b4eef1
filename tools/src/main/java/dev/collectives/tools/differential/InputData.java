package dev.collectives.tools.differential;

import dev.collectives.annotation.DataType;
import dev.collectives.tools.differential.Output.Segment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The inputs of the corpus: for each rank, call and buffer, a deterministic stream of values, so that the sim run and
 * the other backend's processes fill the same bytes without sharing them. Integers take any bit pattern (their sums
 * and products wrap alike in every order); floating-point values are ±[0.5, 2) with random significands, never zero,
 * infinite or NaN, so that sums of up to 8 ranks and products stay in range for every type, fp8 included.
 */
final class InputData {
    private InputData() {}

    /** The contents of an allocation of {@code bytes} whose byte ranges hold the types of {@code segments}. */
    static byte[] fill(List<Segment> segments, long bytes, long... key) {
        ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(bytes)).order(ByteOrder.nativeOrder());
        long stream = mix(key);
        for (Segment s : segments) {
            int size = s.type().size();
            for (long at = s.offset(); at + size <= s.offset() + s.length(); at += size) {
                long bits = bits(s.type(), splitMix(stream + at));
                switch (size) {
                    case 1 -> out.put((int) at, (byte) bits);
                    case 2 -> out.putShort((int) at, (short) bits);
                    case 4 -> out.putInt((int) at, (int) bits);
                    default -> out.putLong((int) at, bits);
                }
            }
        }
        return out.array();
    }

    /** An element of {@code type} made from 64 random bits. */
    static long bits(DataType type, long random) {
        return switch (type) {
            case INT8, UINT8 -> random & 0xFF;
            case INT32, UINT32 -> random & 0xFFFF_FFFFL;
            case INT64, UINT64 -> random;
            case FLOAT64 -> floating(random, 11, 52);
            case FLOAT32 -> floating(random, 8, 23);
            case FLOAT16 -> floating(random, 5, 10);
            case BFLOAT16 -> floating(random, 8, 7);
            case FP8_E4M3 -> floating(random, 4, 3);
            case FP8_E5M2 -> floating(random, 5, 2);
        };
    }

    /** Sign from bit 63, exponent 2^-1 or 2^0 from bit 62, significand from the low bits. */
    private static long floating(long random, int exponentBits, int significandBits) {
        long bias = (1L << (exponentBits - 1)) - 1;
        long exponent = bias - 1 + ((random >>> 62) & 1);
        long sign = random >>> 63;
        return sign << (exponentBits + significandBits)
                | exponent << significandBits
                | (random & ((1L << significandBits) - 1));
    }

    /** SplitMix64 over the values, one after the other: a well-spread 64-bit key. */
    static long mix(long... values) {
        long h = 0x9E3779B97F4A7C15L;
        for (long v : values) {
            h = splitMix(h ^ v);
        }
        return h;
    }

    private static long splitMix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
