package dev.collectives.processor.model;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.processor.validation.Diagnostics;
import dev.collectives.processor.validation.ValidatedBuffer;
import dev.collectives.processor.validation.ValidatedOp;
import dev.collectives.processor.validation.ValidatedPipeline;
import dev.collectives.processor.validation.Validation;
import dev.collectives.processor.validation.Validators;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.Test;

/**
 * The pipeline validation hands the writer: records of known values (no component that could be null or is
 * optional), whose lists cannot change.
 */
class ValidatedModelTest {
    private static final List<String> GOLDEN = List.of(
            "FusedPipeline",
            "GraphPipeline",
            "LocalPipeline",
            "NonePipeline",
            "ShapesGraphPipeline",
            "ShapesLocalPipeline");

    @Test
    void everyComponentIsKnownByItsType() {
        List<String> nullable = new ArrayList<>();
        typeCheck(ValidatedPipeline.class, false, new HashSet<>(), "ValidatedPipeline", nullable);
        assertEquals(List.of(), nullable, "components whose type admits null, an absent value or changes");
    }

    @Test
    void everyValueOfTheGoldenPipelinesIsPresentAndEveryListUnchangeable() {
        List<JavaFileObject> sources = GOLDEN.stream()
                .map(name -> JavaFileObjects.forResource("sources/golden/" + name + ".java"))
                .toList();
        List<ValidatedPipeline> pipelines = validated(sources);
        assertEquals(GOLDEN.size(), pipelines.size());
        List<String> found = new ArrayList<>();
        for (ValidatedPipeline p : pipelines) {
            valueCheck(p, p.type().getSimpleName().toString(), found);
        }
        assertEquals(List.of(), found);
        // the planner's decisions are in the model: FusedPipeline fuses and groups
        ValidatedPipeline fused = pipelines.stream()
                .filter(p -> p.type().getSimpleName().contentEquals("FusedPipeline"))
                .findFirst()
                .orElseThrow();
        assertTrue(fused.steps().stream()
                .flatMap(s -> s.plan().proven().calls().stream())
                .anyMatch(ValidatedOp::isFused));
    }

    @Test
    void valuesAreKnown() {
        ValidatedPipeline pipeline = validated(
                "@CollectivePipeline(registration = Registration.LOCAL)",
                "interface P {",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  @View(of = \"a\", offsetBytes = 128, type = DataType.FLOAT32, count = 8) DeviceBuffer v();",
                "  @External(type = DataType.FLOAT32, count = 64) DeviceBuffer e();",
                "  @AllReduce(send = \"a\", recv = \"e\", count = 8)",
                "  void step();",
                "}");
        assertThrows(
                UnsupportedOperationException.class, () -> pipeline.buffers().clear());
        ValidatedBuffer a = pipeline.buffer("a");
        ValidatedBuffer v = pipeline.buffer("v");
        ValidatedBuffer e = pipeline.buffer("e");
        assertEquals(Allocator.MEM_ALLOC, ((ValidatedBuffer.Allocation) a.origin()).allocator());
        ValidatedBuffer.Placement placement = (ValidatedBuffer.Placement) v.origin();
        assertEquals("a", placement.of());
        assertEquals("128", placement.offsetBytes().toString());
        assertEquals("a", v.root());
        assertEquals(BufferDecl.Kind.EXTERNAL, e.kind());
        assertTrue(e.registered());
        ValidatedOp allReduce = pipeline.steps().get(0).ops().get(0);
        assertEquals("a", allReduce.side(OpSide.Role.SEND).buffer());
        assertEquals("e", allReduce.side(OpSide.Role.RECV).buffer());
        assertTrue(allReduce.fixed());
        assertEquals(8, allReduce.knownCount());
        assertEquals(List.of(new ValidatedOp.Reduction(ReduceOp.SUM)), allReduce.arguments());
        assertEquals("@AllReduce #1 in step()", allReduce.label());
    }

    @Test
    void recordsRefuseNull() {
        ValidatedBuffer a = validated(
                        "@CollectivePipeline(registration = Registration.NONE)",
                        "interface P {",
                        "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                        "}")
                .buffer("a");
        assertThrows(
                NullPointerException.class,
                () -> new ValidatedBuffer(
                        a.name(),
                        a.type(),
                        null,
                        a.origin(),
                        a.root(),
                        a.registered(),
                        a.legacyServedByIbSharp(),
                        a.window(),
                        a.windowSymmetric()));
        assertThrows(NullPointerException.class, () -> new ValidatedBuffer.Placement("a", null));
        assertThrows(NullPointerException.class, () -> new ValidatedBuffer.Allocation(null, null));
        assertThrows(NullPointerException.class, () -> new ValidatedOp.Reduction(null));
    }

    /**
     * Adds to {@code nullable} each component reachable from {@code type} whose type may hold null, an absent
     * value or a collection that changes: allowed are primitives, enums, strings, records and sealed interfaces of
     * records (checked in turn), lists (whose elements may be boxed: {@code List.copyOf} refuses null) and the
     * elements and types of {@code javax.lang.model}, which javac owns.
     */
    private static void typeCheck(Type type, boolean element, Set<Type> seen, String where, List<String> nullable) {
        if (type instanceof ParameterizedType parameterized && parameterized.getRawType() == List.class) {
            typeCheck(parameterized.getActualTypeArguments()[0], true, seen, where + "[]", nullable);
            return;
        }
        if (!(type instanceof Class<?> c)) {
            nullable.add(where + ": " + type);
            return;
        }
        boolean known = c.isPrimitive()
                || c.isEnum()
                || c == String.class
                || c.getPackageName().startsWith("javax.lang.model")
                || element
                        && Number.class.isAssignableFrom(c)
                        && c.getPackageName().equals("java.lang");
        if (known || !seen.add(c)) {
            return;
        }
        if (c.isRecord()) {
            for (RecordComponent component : c.getRecordComponents()) {
                typeCheck(
                        component.getGenericType(),
                        false,
                        seen,
                        c.getSimpleName() + "." + component.getName(),
                        nullable);
            }
        } else if (c.isSealed() && Arrays.stream(c.getPermittedSubclasses()).allMatch(Class::isRecord)) {
            for (Class<?> permitted : c.getPermittedSubclasses()) {
                typeCheck(permitted, false, seen, where + " as " + permitted.getSimpleName(), nullable);
            }
        } else {
            nullable.add(where + ": " + c.getName());
        }
    }

    /** Adds to {@code found} each null value and each list that can change, reachable from {@code value}. */
    private static void valueCheck(Object value, String where, List<String> found) {
        if (value == null) {
            found.add(where + " is null");
        } else if (value instanceof List<?> list) {
            if (!unchangeable(list)) {
                found.add(where + " can change");
            }
            for (int i = 0; i < list.size(); i++) {
                valueCheck(list.get(i), where + "[" + i + "]", found);
            }
        } else if (value instanceof Record record) {
            for (RecordComponent component : record.getClass().getRecordComponents()) {
                try {
                    valueCheck(component.getAccessor().invoke(record), where + "." + component.getName(), found);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    private static boolean unchangeable(List<?> list) {
        try {
            list.add(null);
            return false;
        } catch (UnsupportedOperationException expected) {
            return true;
        }
    }

    /** Reads and validates the pipeline in {@code lines} (package {@code test}) as the processor does. */
    private static ValidatedPipeline validated(String... lines) {
        List<String> source = new ArrayList<>(
                List.of("package test;", "import dev.collectives.annotation.*;", "import dev.collectives.runtime.*;"));
        source.addAll(List.of(lines));
        List<ValidatedPipeline> validated = validated(List.of(JavaFileObjects.forSourceLines("test.P", source)));
        assertEquals(1, validated.size());
        return validated.get(0);
    }

    /** Reads and validates every pipeline of {@code sources} as the processor does. */
    private static List<ValidatedPipeline> validated(List<JavaFileObject> sources) {
        List<ValidatedPipeline> validated = new ArrayList<>();
        Compilation compilation =
                Compiler.javac().withProcessors(new Validating(validated)).compile(sources);
        assertThat(compilation).succeeded();
        return validated;
    }

    /** Reads each pipeline and validates it, keeping what validation hands the writer. */
    @SupportedAnnotationTypes(ModelReader.PIPELINE)
    private static final class Validating extends AbstractProcessor {
        private final List<ValidatedPipeline> validated;

        Validating(List<ValidatedPipeline> validated) {
            this.validated = validated;
        }

        @Override
        public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
            TypeElement pipelineAnnotation = processingEnv.getElementUtils().getTypeElement(ModelReader.PIPELINE);
            Validation validation = new Validation(Validators.all(processingEnv));
            Diagnostics diagnostics =
                    new Diagnostics(processingEnv.getMessager(), null, RepeatedAnnotations.of(processingEnv));
            for (var element : round.getElementsAnnotatedWith(pipelineAnnotation)) {
                TypeElement type = (TypeElement) element;
                PipelineModel model = new ModelReader(processingEnv.getElementUtils(), SourceOrder.of(processingEnv))
                        .read(type, ModelReader.pipelineMirror(type).orElseThrow());
                Optional<ValidatedPipeline> pipeline = validation.validate(model, diagnostics);
                pipeline.ifPresent(validated::add);
            }
            return false;
        }

        @Override
        public SourceVersion getSupportedSourceVersion() {
            return SourceVersion.latestSupported();
        }
    }
}
