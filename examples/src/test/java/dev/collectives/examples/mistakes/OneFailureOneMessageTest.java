package dev.collectives.examples.mistakes;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.LocalCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a user sees of a mistake that every rank fails alike, left uncaught: the reason once, what differs per rank
 * in one line, where in the user's code, and no copy of the same failure per rank.
 */
class OneFailureOneMessageTest {
    private static final int RANKS = 4;
    private static final String SENTENCE = "buffers at different offsets from their allocation's head";

    @Test
    void externalsAtADifferentOffsetOnEachRankPrintOneShortTrace() throws InterruptedException {
        String trace = uncaughtTrace(() -> {
            try (LocalCluster cluster = Backends.get("sim").local(RANKS)) {
                cluster.run(rank -> {
                    try (DeviceBuffer block = rank.comm()
                            .allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, ExternalAllReduce.COUNT + 64L * RANKS)) {
                        DeviceBuffer input = block.slice(64L * rank.rank(), ExternalAllReduce.COUNT);
                        CollectiveExternalAllReduce.bind(rank.comm(), rank.stream(), input)
                                .close();
                    }
                });
            }
        });
        List<String> lines = trace.lines().toList();

        assertTrue(lines.size() <= 20, lines.size() + " lines:\n" + trace);
        assertTrue(occurrences(trace, SENTENCE) <= 2, trace);
        assertTrue(
                lines.get(0)
                        .startsWith(CollectivesException.class.getName() + ": ranks 0-3 failed: [R2 OFFSET] "
                                + "ranks passed " + ExternalAllReduce.class.getName() + " " + SENTENCE),
                lines.get(0));
        for (int rank = 0; rank < RANKS; rank++) {
            assertTrue(lines.get(0).contains("rank " + rank + ": " + 256 * rank + " bytes from"), lines.get(0));
        }
        String userFrame = OneFailureOneMessageTest.class.getName() + ".lambda$";
        assertTrue(lines.get(1).startsWith("  thrown in " + userFrame), trace);
        assertTrue(lines.get(2).contains("at " + userFrame), "the trace starts in the caller's code:\n" + trace);
        assertFalse(trace.contains("Suppressed:"), trace);
    }

    /** What the JVM prints of what {@code main} throws, uncaught, on a thread of its own (a program's main). */
    private static String uncaughtTrace(Runnable main) throws InterruptedException {
        StringWriter trace = new StringWriter();
        Thread thread = new Thread(main, "main");
        thread.setUncaughtExceptionHandler((t, e) -> e.printStackTrace(new PrintWriter(trace, true)));
        thread.start();
        thread.join();
        return trace.toString();
    }

    private static int occurrences(String text, String part) {
        return text.split(Pattern.quote(part), -1).length - 1;
    }
}
