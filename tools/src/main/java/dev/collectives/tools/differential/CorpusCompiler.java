package dev.collectives.tools.differential;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Communicator;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles the corpus as a user's build would: the sources of the interfaces through {@code javac} in this process,
 * with the project's annotation processor generating each {@code Collective<Name>} class and checking its rules.
 * (Only this class needs the compiler: a runtime without it loads a corpus compiled elsewhere.)
 */
final class CorpusCompiler {
    private static final String PROCESSOR = "dev.collectives.processor.CollectivesProcessor";
    private static final String JAVAPOET = "com.palantir.javapoet.JavaFile";

    private CorpusCompiler() {}

    /** Writes the sources under {@code directory/src} and compiles them into {@code directory/classes}, returned. */
    static Path compile(List<PipelineSpec> specs, Path directory) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Path classes = directory.resolve("classes");
        Path generated = directory.resolve("generated");
        List<Path> sources = new ArrayList<>();
        try {
            ResultStore.deleteTree(directory);
            Path packageDir = directory.resolve("src").resolve(PipelineSpec.PACKAGE.replace('.', File.separatorChar));
            Files.createDirectories(packageDir);
            Files.createDirectories(classes);
            Files.createDirectories(generated);
            for (PipelineSpec spec : specs) {
                Path source = packageDir.resolve(spec.name() + ".java");
                Files.writeString(source, PipelineSource.write(spec), StandardCharsets.UTF_8);
                sources.add(source);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the corpus under " + directory, e);
        }
        String path = classPath();
        List<String> options = List.of(
                "-d",
                classes.toString(),
                "-s",
                generated.toString(),
                "-classpath",
                path,
                "-processorpath",
                path,
                "-processor",
                PROCESSOR,
                "-implicit:none",
                "-encoding",
                "UTF-8",
                "-nowarn");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files =
                javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            boolean compiled = javac.getTask(
                            null, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(sources))
                    .call();
            if (!compiled) {
                throw new IllegalStateException("the corpus did not compile:\n"
                        + diagnostics.getDiagnostics().stream()
                                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                                .limit(10)
                                .map(d -> d.getSource() == null
                                        ? d.getMessage(Locale.ROOT)
                                        : d.getSource().getName() + ":" + d.getLineNumber() + ": "
                                                + d.getMessage(Locale.ROOT))
                                .collect(Collectors.joining("\n")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return classes;
    }

    /** The api, the runtime, the processor and JavaPoet where this program found them, then its class path. */
    private static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        try {
            for (Class<?> c :
                    List.of(DataType.class, Communicator.class, Class.forName(PROCESSOR), Class.forName(JAVAPOET))) {
                entries.add(Path.of(c.getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI())
                        .toString());
            }
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(
                    "the annotation processor (collectives-processor and JavaPoet) must be on "
                            + "the class path to compile the corpus: " + e.getMessage(),
                    e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        entries.add(System.getProperty("java.class.path"));
        return String.join(File.pathSeparator, entries);
    }
}
