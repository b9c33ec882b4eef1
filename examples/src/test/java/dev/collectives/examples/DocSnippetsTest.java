package dev.collectives.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java snippets of the README, the guide and the interop page that are whole source files (they start with {@code package}, and
 * have their imports) compile, with the annotation processor generating and checking their pipelines, as a user's
 * build would: the documentation cannot drift from the API.
 */
class DocSnippetsTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(package .*?)```", Pattern.DOTALL);
    private static final Pattern PUBLIC_TYPE =
            Pattern.compile("^public (?:final )?(?:interface|class|record|enum) (\\w+)", Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    @Test
    void everyWholeSourceSnippetCompilesWithTheProcessor(@TempDir Path dir) throws IOException {
        List<Path> sources = new ArrayList<>();
        for (Path doc : List.of(
                Path.of("..", "README.md"), Path.of("..", "docs", "guide.md"), Path.of("..", "docs", "interop.md"))) {
            Matcher block = JAVA_BLOCK.matcher(Files.readString(doc));
            while (block.find()) {
                sources.add(write(dir.resolve("src"), block.group(1), doc));
            }
        }
        assertTrue(sources.size() >= 2, "whole-source snippets: " + sources);
        assertTrue(sources.stream().anyMatch(s -> read(s).contains("@Broadcast(")), "the guide shows @Broadcast");

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Files.createDirectories(dir.resolve("classes"));
        String path = System.getProperty("java.class.path");
        try (StandardJavaFileManager files =
                javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            boolean compiled = javac.getTask(
                            null,
                            files,
                            diagnostics,
                            List.of(
                                    "-d",
                                    dir.resolve("classes").toString(),
                                    "-classpath",
                                    path,
                                    "-processorpath",
                                    path,
                                    "-implicit:none",
                                    "-encoding",
                                    "UTF-8"),
                            null,
                            files.getJavaFileObjectsFromPaths(sources))
                    .call();
            assertTrue(
                    compiled,
                    diagnostics.getDiagnostics().stream()
                            .map(d -> d.getSource() == null
                                    ? d.getMessage(Locale.ROOT)
                                    : d.getSource().getName() + ":" + d.getLineNumber() + ": "
                                            + d.getMessage(Locale.ROOT))
                            .collect(Collectors.joining("\n")));
        }
    }

    /** {@code source} as the file of its public type, under its package's directory. */
    private static Path write(Path root, String source, Path doc) throws IOException {
        Matcher type = PUBLIC_TYPE.matcher(source);
        Matcher pkg = PACKAGE.matcher(source);
        assertTrue(type.find() && pkg.find(), "a snippet of " + doc + " with a package and a public type:\n" + source);
        Path file = root.resolve(pkg.group(1).replace('.', '/')).resolve(type.group(1) + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        return file;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
