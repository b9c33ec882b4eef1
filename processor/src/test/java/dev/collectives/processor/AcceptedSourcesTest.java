package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Whatever the processor accepts compiles cleanly: each source of src/test/resources/accepted (declarations a user
 * could write that generated code must survive: shadowed java.lang names, deprecation, every allocator form) compiles
 * with its generated classes under -Xlint:all -Werror; and every malformed corpus source that still gets a generated
 * class (its diagnostics are warnings) has generated code that compiles under -Xlint:all -Werror.
 */
class AcceptedSourcesTest {
    private static List<Path> sources(String directory) throws IOException {
        try (Stream<Path> files = Files.list(Path.of("src/test/resources", directory))) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().collect(Collectors.toList());
        }
    }

    private static JavaFileObject source(String pkg, Path path) throws IOException {
        return JavaFileObjects.forSourceString(
                pkg + "." + path.getFileName().toString().replace(".java", ""),
                Files.readString(path, StandardCharsets.UTF_8));
    }

    @TestFactory
    Stream<DynamicTest> everyAcceptedSourceCompilesWithItsGeneratedClassesWithoutWarnings() throws IOException {
        return sources("accepted").stream()
                .map(path -> DynamicTest.dynamicTest(path.getFileName().toString(), () -> {
                    Compilation compilation = Sources.compiler(true).compile(source("accepted", path));
                    assertThat(compilation).succeededWithoutWarnings();
                    assertTrue(
                            compilation.generatedSourceFiles().stream()
                                    .anyMatch(f -> f.getName().contains("/Collective")),
                            "no class generated for " + path);
                    for (JavaFileObject generated : compilation.generatedSourceFiles()) {
                        assertThat(compilation)
                                .generatedSourceFile(generated
                                        .getName()
                                        .replaceAll(".*/SOURCE_OUTPUT/", "")
                                        .replace(".java", "")
                                        .replace('/', '.'))
                                .contentsAsUtf8String()
                                .contains("Generated(\"dev.collectives.processor.CollectivesProcessor\")");
                    }
                }));
    }

    @TestFactory
    Stream<DynamicTest> generatedCodeOfEveryCorpusSourceItAcceptsCompilesWithoutWarnings() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path path : sources("corpus")) {
            JavaFileObject original = source("corpus", path);
            Compilation processed = Sources.compiler(false).compile(original);
            if (processed.status() != Compilation.Status.SUCCESS
                    || processed.generatedSourceFiles().isEmpty()) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(path.getFileName().toString(), () -> {
                List<JavaFileObject> all = new ArrayList<>(processed.generatedSourceFiles());
                all.add(original);
                Compilation again = Compiler.javac()
                        .withOptions("-proc:none", "-Xlint:all", "-Werror")
                        .compile(all);
                assertThat(again).succeededWithoutWarnings();
            }));
        }
        assertTrue(tests.size() >= 3, "only " + tests.size() + " corpus sources get a generated class");
        return tests.stream();
    }
}
