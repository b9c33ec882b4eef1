package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.JavaFileObjects;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.annotation.processing.Filer;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Passing pipelines for GRAPH, LOCAL and NONE, and with sizes at bind and at call (ShapesLocalPipeline,
 * ShapesGraphPipeline): they compile without a warning under -Xlint:all -Werror, and the
 * generated source equals the golden copy in src/test/resources/golden (kept as .java.txt, so that javac does not see it on the class path). After an intended change to the writer,
 * regenerate the golden copies with {@code mvn -pl processor -am test -Dtest=GoldenSourcesTest -Dgolden.update=true}
 * and review the diff.
 */
class GoldenSourcesTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden");

    private static Compilation compile(String pipeline) {
        JavaFileObject source = JavaFileObjects.forResource("sources/golden/" + pipeline + ".java");
        Compilation compilation = Sources.compiler(true).compile(source);
        assertThat(compilation).succeededWithoutWarnings();
        return compilation;
    }

    private static String generated(Compilation compilation, String pipeline) throws IOException {
        return compilation
                .generatedSourceFile("golden.Collective" + pipeline)
                .orElseThrow()
                .getCharContent(true)
                .toString();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "GraphPipeline",
                "LocalPipeline",
                "NonePipeline",
                "ShapesLocalPipeline",
                "ShapesGraphPipeline",
                "FusedPipeline"
            })
    void generatedSourceMatchesGolden(String pipeline) throws IOException {
        String generated = generated(compile(pipeline), pipeline);
        Path golden = GOLDEN.resolve("Collective" + pipeline + ".java.txt");
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(golden, generated, StandardCharsets.UTF_8);
        }
        assertEquals(
                Files.readString(golden, StandardCharsets.UTF_8),
                generated,
                "generated source differs from " + golden + "; if intended, rerun with -Dgolden.update=true");
    }

    @Test
    void everyGoldenLineFitsOneHundredColumns() throws IOException {
        List<String> longLines = new ArrayList<>();
        try (Stream<Path> goldens = Files.list(GOLDEN)) {
            for (Path golden : goldens.sorted().toList()) {
                List<String> lines = Files.readAllLines(golden, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    if (lines.get(i).length() > 100) {
                        longLines.add(golden.getFileName() + ":" + (i + 1) + ": " + lines.get(i));
                    }
                }
            }
        }
        assertEquals(List.of(), longLines, "generated lines longer than 100 columns");
    }

    @Test
    void opsRunInWrittenOrderAcrossKinds() throws IOException {
        String generated = generated(compile("NonePipeline"), "NonePipeline");
        String mixed = generated.substring(generated.indexOf("public void mixed()"));
        int firstAllReduce = mixed.indexOf("comm.allReduce(in, out, 64L");
        int broadcast = mixed.indexOf("comm.broadcast(");
        int secondAllReduce = mixed.indexOf("comm.allReduce(mixedOp2Send");
        assertTrue(firstAllReduce >= 0 && firstAllReduce < broadcast && broadcast < secondAllReduce, mixed);
    }

    @Test
    void anotherPipelineInTheSameCompilationDoesNotChangeTheOutput() throws IOException {
        Compilation both = Sources.compiler(true)
                .compile(
                        JavaFileObjects.forResource("sources/golden/GraphPipeline.java"),
                        JavaFileObjects.forResource("sources/golden/NonePipeline.java"));
        assertThat(both).succeededWithoutWarnings();
        assertEquals(generated(compile("GraphPipeline"), "GraphPipeline"), generated(both, "GraphPipeline"));
    }

    @Test
    void eachGeneratedFileHasItsPipelineAsOnlyOriginatingElement() {
        Map<String, List<String>> origins = new TreeMap<>();
        WrappedProcessor recording = new WrappedProcessor(env -> {
            Filer filer = WrappedProcessor.override(Filer.class, env.getFiler(), "createSourceFile", args -> {
                Element[] elements = (Element[]) args[1];
                origins.put(
                        args[0].toString(),
                        Stream.of(elements)
                                .map(e -> ((TypeElement) e).getQualifiedName().toString())
                                .collect(Collectors.toList()));
                return env.getFiler().createSourceFile((CharSequence) args[0], elements);
            });
            return WrappedProcessor.override(ProcessingEnvironment.class, env, "getFiler", args -> filer);
        });
        assertThat(Sources.compiler(false)
                        .withProcessors(recording)
                        .compile(
                                JavaFileObjects.forResource("sources/golden/GraphPipeline.java"),
                                JavaFileObjects.forResource("sources/golden/NonePipeline.java")))
                .succeeded();
        assertEquals(
                Map.of(
                        "golden.CollectiveGraphPipeline",
                        List.of("golden.GraphPipeline"),
                        "golden.CollectiveNonePipeline",
                        List.of("golden.NonePipeline")),
                origins);
    }

    @Test
    void registeredAsIsolatingForGradle() throws IOException {
        try (var in = getClass().getResourceAsStream("/META-INF/gradle/incremental.annotation.processors")) {
            assertEquals(
                    "dev.collectives.processor.CollectivesProcessor,isolating",
                    new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
        }
    }
}
