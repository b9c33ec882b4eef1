package dev.collectives.examples;

import dev.collectives.runtime.DeviceBuffer;
import java.util.Arrays;

/**
 * The values the examples put in their buffers, and the results expected of them, computed on the host. Every
 * value depends on the rank, the element index and the iteration, so that data from the wrong rank, the wrong
 * offset or a stale replay shows up as a wrong element. All values are small integers, so that their sums over
 * up to {@link #EXACT_RANKS} ranks are exact in float32 whatever order a library adds them in.
 */
public final class HostData {
    /** Written to receive buffers before a step: no sum of {@link #value} values is negative. */
    public static final float UNTOUCHED = -1f;

    /** Values run from 1 to this prime: shifting the index by 256, 1024, 2048 or 4096 elements changes them. */
    private static final int PERIOD = 4093;
    /** Ranks whose sums stay below 2^24, under which float32 holds every integer. */
    public static final int EXACT_RANKS = (1 << 24) / PERIOD;

    private HostData() {}

    /**
     * What {@code rank} puts at element {@code index} in {@code iteration}. Distinct ranks (below the period) and
     * consecutive iterations get distinct values at every index.
     */
    public static float value(int iteration, int rank, long index) {
        return 1 + Math.floorMod(iteration * 7919L + rank * 1009L + index, PERIOD);
    }

    /** {@code count} values of {@code rank} for indices {@code first, first + 1, ...}. */
    public static float[] values(int iteration, int rank, long first, int count) {
        float[] out = new float[count];
        for (int j = 0; j < count; j++) {
            out[j] = value(iteration, rank, first + j);
        }
        return out;
    }

    /** The sum over all {@code size} ranks of their value at {@code index}: what SUM reductions produce. */
    public static float sum(int iteration, int size, long index) {
        float total = 0;
        for (int r = 0; r < size; r++) {
            total += value(iteration, r, index);
        }
        return total;
    }

    /** {@code count} elements of {@link #UNTOUCHED}. */
    public static float[] untouched(int count) {
        float[] out = new float[count];
        Arrays.fill(out, UNTOUCHED);
        return out;
    }

    /** The first {@code count} floats of {@code buffer}; synchronize its stream first. */
    public static float[] read(DeviceBuffer buffer, int count) {
        float[] host = new float[count];
        buffer.copyToHost(host);
        return host;
    }

    /** All of a float32 {@code buffer}. */
    public static float[] read(DeviceBuffer buffer) {
        return read(buffer, Math.toIntExact(buffer.count()));
    }

    /** Element-wise comparison; the first difference is reported with {@code buffer} and its index. */
    public static Check compare(int rank, String buffer, float[] expected, float[] actual) {
        if (expected.length != actual.length) {
            return Check.wrong(rank, buffer + " length", expected.length, actual.length);
        }
        for (int i = 0; i < expected.length; i++) {
            if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(actual[i])) {
                return Check.mismatch(rank, buffer, i, expected[i], actual[i]);
            }
        }
        return Check.matched(buffer + "[0, " + expected.length + ")", buffer, actual);
    }
}
