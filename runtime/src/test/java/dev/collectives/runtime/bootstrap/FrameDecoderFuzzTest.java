package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The frame decoder under random and mutated input, in a JVM with a 16 MiB heap: one allocation of a claimed
 * length (up to 2^31-1, or even the 16 MiB bound of an allgather) would exhaust it.
 */
class FrameDecoderFuzzTest {
    @Test
    void randomAndMutatedFramesDecodeOrAreRefusedWithoutExhaustingASmallHeap() {
        try (ChildRank fuzz = ChildRank.start("fuzz", FrameFuzz.class, List.of("-Xmx16m"), Map.of(), "20261201")) {
            String line = fuzz.await("FUZZ OK", Duration.ofSeconds(90));
            assertTrue(line.startsWith("FUZZ OK 60000 inputs"), line);
            fuzz.awaitExit(0);
        }
    }
}
