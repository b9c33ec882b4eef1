package dev.collectives.processor;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;

/**
 * Malformed sources (src/test/resources/corpus, each starting with {@code // expect: <text>} and marking one line
 * with {@code // <- here}): every one gets an error or warning containing the expected text (its tag) in that
 * file on that line, and no internal error or processor crash. Where javac itself reports the error and its wording
 * differs between JDKs, the text lists each wording, separated by {@code " | "}.
 */
class CorpusTest {
    private static final Path CORPUS = Path.of("src/test/resources/corpus");

    private static List<Path> corpus() throws IOException {
        try (Stream<Path> files = Files.list(CORPUS)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
        }
    }

    private static final String MARKER = "// <- here";

    @Test
    void holdsAtLeastOneHundredFiftySources() throws IOException {
        assertTrue(corpus().size() >= 150, "corpus has " + corpus().size() + " sources");
    }

    @TestFactory
    Stream<DynamicTest> everyMalformedSourceGetsDiagnosticsAndNoInternalError() throws IOException {
        return corpus().stream().map(path -> DynamicTest.dynamicTest(path.getFileName().toString(), () -> {
            String text = Files.readString(path, StandardCharsets.UTF_8);
            String expected = text.lines().findFirst().orElseThrow().replace("// expect: ", "").trim();
            JavaFileObject source = JavaFileObjects.forSourceString("corpus."
                    + path.getFileName().toString().replace(".java", ""), text);
            Compilation compilation = Sources.compiler(false).compile(source);
            List<String> messages = compilation.diagnostics().stream()
                    .map(d -> d.getKind() + ": " + d.getMessage(Locale.ROOT)).collect(Collectors.toList());
            assertFalse(messages.isEmpty(), "no diagnostics for " + path);
            List<String> wordings = List.of(expected.split(" \\| "));
            long line = markedLine(text, path);
            String file = path.getFileName().toString();
            assertTrue(compilation.diagnostics().stream()
                            .anyMatch(d -> wordings.stream().anyMatch(d.getMessage(Locale.ROOT)::contains)
                                    && d.getLineNumber() == line && d.getSource() != null
                                    && d.getSource().getName().endsWith("/" + file)),
                    "no diagnostic contains `" + expected + "` on line " + line + " of " + file + ": "
                            + compilation.diagnostics());
            assertTrue(messages.stream().noneMatch(m -> m.contains("[internal]")
                    || m.contains("threw an uncaught exception")), "internal error: " + messages);
            boolean reportsProblem = compilation.diagnostics().stream()
                    .anyMatch(d -> d.getKind() == Diagnostic.Kind.ERROR || d.getKind() == Diagnostic.Kind.WARNING);
            assertTrue(reportsProblem, "only notes for " + path + ": " + messages);
        }));
    }

    /** The 1-based line holding the marker; exactly one line does. */
    static long markedLine(String text, Path path) {
        List<String> lines = text.lines().collect(Collectors.toList());
        List<Integer> marked = new java.util.ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(MARKER)) {
                marked.add(i + 1);
            }
        }
        assertTrue(marked.size() == 1, path + " must mark exactly one line with `" + MARKER + "`: " + marked);
        return marked.get(0);
    }
}
