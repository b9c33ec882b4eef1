package dev.collectives.examples.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.collectives.runtime.Backends;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;

/** Runs bodies on n sim ranks, and fills and checks float buffers. */
final class Ranks {
    private Ranks() {}

    static void run(int ranks, LocalCluster.RankBody body) {
        try (LocalCluster cluster = Backends.get("sim").local(ranks)) {
            cluster.run(body);
        }
    }

    /** {@code count} floats, element i = 100 × rank + i: every rank's data tells where it came from. */
    static float[] ramp(int rank, int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = 100f * rank + i;
        }
        return values;
    }

    static float[] filled(int count, float value) {
        float[] values = new float[count];
        java.util.Arrays.fill(values, value);
        return values;
    }

    static float[] read(DeviceBuffer buffer, int count) {
        float[] values = new float[count];
        buffer.copyToHost(values);
        return values;
    }

    static void assertFloats(float[] expected, DeviceBuffer buffer, String what) {
        assertArrayEquals(expected, read(buffer, expected.length), what);
    }
}
