package dev.collectives.tools.differential;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The random corpus: the first {@code size} pipelines of {@code seed}, no op counting more than {@code maxCount}
 * elements; compiled once, where every process loads it from: into a directory under the results, or, for a Java
 * runtime without the compiler, beforehand into a jar ({@code --prepare-corpus}, which gpu/stage.sh runs).
 *
 * @param compiled where its classes are or go: a directory, or a jar
 */
record Corpus(long seed, int size, long maxCount, Path compiled) {
    /** The largest op count the corpus draws by default: 2^20. */
    static final long MAX_COUNT = 1 << 20;
    /** What a compiled corpus holds, so that one compiled beforehand is used only for what it is. */
    private static final String PROPERTIES = PipelineSpec.PACKAGE.replace('.', '/') + "/corpus.properties";

    List<PipelineSpec> specs() {
        return CorpusGenerator.corpus(seed, size, maxCount);
    }

    /** Generates and compiles it into {@link #compiled}. */
    void compile() {
        if (ModuleLayer.boot().findModule("jdk.compiler").isEmpty()) {
            throw new IllegalArgumentException("this Java runtime has no compiler (module jdk.compiler) to compile the "
                    + "corpus with: give one compiled beforehand with --corpus-jar (made by 'differential "
                    + "--prepare-corpus FILE' on a JDK; gpu/stage.sh makes .gpu/corpus.jar)");
        }
        try {
            Path build = isJar() ? Files.createTempDirectory("collectives-corpus") : compiled;
            try {
                Path classes = CorpusCompiler.compile(specs(), build);
                Path properties = classes.resolve(PROPERTIES);
                try (OutputStream file = Files.newOutputStream(properties)) {
                    description().store(file, "the differential harness's corpus");
                }
                if (isJar()) {
                    jar(classes, compiled);
                }
            } finally {
                if (isJar()) {
                    ResultStore.deleteTree(build);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot compile the corpus into " + compiled, e);
        }
    }

    /** Refuses a corpus compiled beforehand with other parameters, saying how to make the one asked for. */
    void requireCompiledAsAsked() {
        Properties found = new Properties();
        try (URLClassLoader loader = load(classRoot());
                InputStream in = loader.getResourceAsStream(PROPERTIES)) {
            if (in != null) {
                found.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + compiled, e);
        }
        if (!found.equals(description())) {
            throw new IllegalArgumentException(compiled + " holds the corpus " + new TreeMap<>(found)
                    + ", not the one asked for, " + new TreeMap<>(description()) + ": compile that one with "
                    + "'differential --prepare-corpus FILE' and these --corpus, --seed and --max-count");
        }
    }

    List<Item> items() {
        ClassLoader loader = load(classRoot());
        return specs().stream()
                .<Item>map(spec -> new CorpusItem(spec, loader, seed))
                .toList();
    }

    private Properties description() {
        Properties p = new Properties();
        p.putAll(Map.of(
                "seed", String.valueOf(seed), "size", String.valueOf(size), "maxCount", String.valueOf(maxCount)));
        return p;
    }

    private boolean isJar() {
        return compiled.getFileName().toString().endsWith(".jar");
    }

    private Path classRoot() {
        return isJar() ? compiled : compiled.resolve("classes");
    }

    /** The classes under {@code classes}, and their resources, as the jar {@code jar}. */
    private static void jar(Path classes, Path jar) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(
                        new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/')));
                Files.copy(file, out);
                out.closeEntry();
            }
        }
    }

    /** A compiled corpus ({@code root}: a directory of classes, or a jar), its classes seeing this program's. */
    private static URLClassLoader load(Path root) {
        try {
            return new URLClassLoader(new URL[] {root.toUri().toURL()}, Corpus.class.getClassLoader());
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(root.toString(), e);
        }
    }
}
