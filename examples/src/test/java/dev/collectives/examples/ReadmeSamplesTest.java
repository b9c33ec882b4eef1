package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sample output of the README's Quick start, and the guide's {@code describe()} table, are what the runner prints
 * for the guide's first example, line for line.
 */
class ReadmeSamplesTest {
    private static final String FIRST = "== seed-graph: ";
    private static final String TABLE = "  dev.collectives.examples.pipelines.SeedGraphRegistration ";

    @Test
    void theQuickStartsPrintoutAndTheGuidesTableAreWhatTheRunnerPrints() throws IOException {
        List<String> printed = RunnerOutput.of("--backend", "sim", "--ranks", "4", "--example", "seed-graph")
                .text()
                .lines()
                .dropWhile(line -> !line.startsWith(FIRST))
                .takeWhile(line -> !line.startsWith("time: "))
                .toList();

        assertEquals(String.join("\n", printed), textBlock(Path.of("..", "README.md"), FIRST));
        List<String> table = printed.subList(1, printed.size() - 1); // without the example's name and its check
        assertEquals(String.join("\n", table), textBlock(Path.of("..", "docs", "guide.md"), TABLE));
    }

    /** The lines of the first {@code text} block of {@code file} that starts with {@code firstLine}. */
    private static String textBlock(Path file, String firstLine) throws IOException {
        String doc = Files.readString(file);
        int start = doc.indexOf("```text\n" + firstLine);
        assertTrue(start >= 0, file + " shows a block starting with " + firstLine);
        int from = start + "```text\n".length();
        return String.join(
                "\n",
                doc.substring(from, doc.indexOf("```", from))
                        .lines()
                        .filter(line -> !line.startsWith("time: "))
                        .toList());
    }
}
