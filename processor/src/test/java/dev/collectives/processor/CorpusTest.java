package dev.collectives.processor;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Malformed sources (src/test/resources/corpus, each starting with {@code // expect: <tag> "<words>"...} and marking
 * one line with {@code // <- here}): every one gets an error or warning in that file on that line that contains the
 * tag and each quoted text, and no internal error or processor crash. A tag of this project ({@code [R7 ARENA]},
 * {@code [DSL step]}) comes with the words of its message; where javac itself reports the error, the tag is words of
 * javac's message, and where that wording differs between JDKs, it lists each wording, separated by {@code " | "}.
 */
class CorpusTest {
    private static final Path CORPUS = Path.of("src/test/resources/corpus");

    private static List<Path> corpus() throws IOException {
        try (Stream<Path> files = Files.list(CORPUS)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
        }
    }

    private static final String MARKER = "// <- here";
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]*)\"");

    @Test
    void holdsAtLeastOneHundredFiftySources() throws IOException {
        assertTrue(corpus().size() >= 150, "corpus has " + corpus().size() + " sources");
    }

    @TestFactory
    Stream<DynamicTest> everyMalformedSourceGetsDiagnosticsAndNoInternalError() throws IOException {
        return corpus().stream()
                .map(path -> DynamicTest.dynamicTest(path.getFileName().toString(), () -> {
                    String text = Files.readString(path, StandardCharsets.UTF_8);
                    String expected = text.lines()
                            .findFirst()
                            .orElseThrow()
                            .replace("// expect: ", "")
                            .trim();
                    int firstQuote = expected.indexOf('"');
                    String tag = firstQuote < 0
                            ? expected
                            : expected.substring(0, firstQuote).trim();
                    List<String> words = QUOTED.matcher(expected)
                            .results()
                            .map(m -> m.group(1))
                            .toList();
                    assertTrue(
                            !tag.startsWith("[") || !words.isEmpty(),
                            path + ": quote the words of the " + tag + " message");
                    JavaFileObject source = JavaFileObjects.forSourceString(
                            "corpus." + path.getFileName().toString().replace(".java", ""), text);
                    Compilation compilation = Sources.compiler(false).compile(source);
                    List<String> messages = compilation.diagnostics().stream()
                            .map(d -> d.getKind() + ": " + d.getMessage(Locale.ROOT))
                            .collect(Collectors.toList());
                    assertFalse(messages.isEmpty(), "no diagnostics for " + path);
                    List<String> wordings = List.of(tag.split(" \\| "));
                    long line = markedLine(text, path);
                    String file = path.getFileName().toString();
                    assertTrue(
                            compilation.diagnostics().stream()
                                    .anyMatch(d -> wordings.stream().anyMatch(d.getMessage(Locale.ROOT)::contains)
                                            && words.stream().allMatch(d.getMessage(Locale.ROOT)::contains)
                                            && d.getLineNumber() == line
                                            && d.getSource() != null
                                            && d.getSource().getName().endsWith("/" + file)),
                            "no diagnostic contains `" + expected + "` on line " + line + " of " + file + ": "
                                    + compilation.diagnostics());
                    assertTrue(
                            messages.stream()
                                    .noneMatch(
                                            m -> m.contains("[internal]") || m.contains("threw an uncaught exception")),
                            "internal error: " + messages);
                    boolean reportsProblem = compilation.diagnostics().stream()
                            .anyMatch(d ->
                                    d.getKind() == Diagnostic.Kind.ERROR || d.getKind() == Diagnostic.Kind.WARNING);
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
