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
 * Malformed sources (src/test/resources/corpus, each starting with {@code // expect: <text>}): every one gets
 * diagnostics, one of them containing the expected text, and none is an internal error or a processor crash. Where
 * javac itself reports the error and its wording differs between JDKs, the text lists each wording, separated by
 * {@code " | "}.
 */
class CorpusTest {
    private static final Path CORPUS = Path.of("src/test/resources/corpus");

    private static List<Path> corpus() throws IOException {
        try (Stream<Path> files = Files.list(CORPUS)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
        }
    }

    @Test
    void holdsAtLeastFiftySources() throws IOException {
        assertTrue(corpus().size() >= 50, "corpus has " + corpus().size() + " sources");
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
            assertTrue(messages.stream().anyMatch(m -> wordings.stream().anyMatch(m::contains)),
                    "no diagnostic contains `" + expected + "`: " + messages);
            assertTrue(messages.stream().noneMatch(m -> m.contains("[internal]")
                    || m.contains("threw an uncaught exception")), "internal error: " + messages);
            boolean reportsProblem = compilation.diagnostics().stream()
                    .anyMatch(d -> d.getKind() == Diagnostic.Kind.ERROR || d.getKind() == Diagnostic.Kind.WARNING);
            assertTrue(reportsProblem, "only notes for " + path + ": " + messages);
        }));
    }
}
