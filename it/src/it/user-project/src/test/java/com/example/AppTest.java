package com.example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.runtime.Backends;
import org.junit.jupiter.api.Test;

class AppTest {
    @Test
    void sumsTheGradientsIntoTheBlockAtTheViewsByteOffsetPlusTheOpsElementOffset() {
        int ranks = 4;
        float[][] blocks = App.run(Backends.get("sim"), ranks);
        int start = 4096 / Float.BYTES + 256;
        for (int r = 0; r < ranks; r++) {
            for (int i = 0; i < blocks[r].length; i++) {
                boolean summed = i >= start && i < start + Gradients.COUNT;
                float expected = summed ? ranks * (i - start) + ranks * (ranks - 1) / 2f : 0f;
                assertEquals(expected, blocks[r][i], "rank " + r + ", element " + i);
            }
        }
    }
}
