package dev.collectives.processor.model;

import static com.google.testing.compile.CompilationSubject.assertThat;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import com.google.testing.compile.JavaFileObjects;
import dev.collectives.annotation.Acceleration;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.processor.validation.Diagnostics;
import dev.collectives.processor.validation.ValidatedBuffer;
import dev.collectives.processor.validation.ValidatedOp;
import dev.collectives.processor.validation.ValidatedPipeline;
import dev.collectives.processor.validation.Validation;
import dev.collectives.processor.validation.Validators;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import org.junit.jupiter.api.Test;

/** The pipeline validation hands the writer: records of known values, whose collections cannot change. */
class ValidatedModelTest {
    private static final List<Class<? extends Record>> VALIDATED = List.of(
            ValidatedPipeline.class,
            ValidatedBuffer.class,
            ValidatedBuffer.Allocation.class,
            ValidatedBuffer.Placement.class,
            ValidatedOp.class,
            ValidatedOp.Side.class,
            ValidatedOp.Target.class);
    private static final Set<Class<?>> BOXED = Set.of(
            Boolean.class,
            Byte.class,
            Short.class,
            Character.class,
            Integer.class,
            Long.class,
            Float.class,
            Double.class);

    @Test
    void noComponentIsABoxedTypeThatCouldBeNull() {
        for (Class<? extends Record> type : VALIDATED) {
            for (RecordComponent c : type.getRecordComponents()) {
                assertFalse(BOXED.contains(c.getType()), type.getSimpleName() + "." + c.getName());
            }
        }
    }

    @Test
    void collectionsCannotChangeAndValuesAreKnown() {
        ValidatedPipeline pipeline = validated(
                "@CollectivePipeline(registration = Registration.LOCAL)",
                "interface P {",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  @View(of = \"a\", offsetBytes = 128, type = DataType.FLOAT32, count = 8) DeviceBuffer v();",
                "  @External(type = DataType.FLOAT32, count = 64) DeviceBuffer e();",
                "  @AllReduce(send = \"a\", recv = \"e\", count = 8)",
                "  void step();",
                "}");
        assertAll(
                () -> assertThrows(
                        UnsupportedOperationException.class,
                        () -> pipeline.buffers().clear()),
                () -> assertThrows(
                        UnsupportedOperationException.class,
                        () -> pipeline.conditions().clear()),
                () -> assertThrows(
                        UnsupportedOperationException.class,
                        () -> pipeline.stepPlans().clear()),
                () -> assertThrows(
                        UnsupportedOperationException.class,
                        () -> pipeline.acceleration().add(Acceleration.MTLINK_SHARP)),
                () -> assertThrows(
                        UnsupportedOperationException.class,
                        () -> pipeline.model().buffers().clear()),
                () -> assertThrows(
                        UnsupportedOperationException.class,
                        () -> pipeline.model().steps().clear()),
                () -> assertThrows(
                        UnsupportedOperationException.class,
                        () -> pipeline.model().steps().get(0).ops().clear()));
        ValidatedBuffer a = pipeline.buffer("a");
        ValidatedBuffer v = pipeline.buffer("v");
        ValidatedBuffer e = pipeline.buffer("e");
        assertEquals(Allocator.MEM_ALLOC, a.allocation().orElseThrow().allocator());
        assertTrue(a.placement().isEmpty());
        assertEquals("a", v.placement().orElseThrow().of());
        assertEquals("128", v.placement().orElseThrow().offsetBytes().toString());
        assertEquals("a", v.root());
        assertTrue(e.allocation().isEmpty() && e.placement().isEmpty());
        assertTrue(e.registered());
        ValidatedOp allReduce =
                pipeline.op(pipeline.model().steps().get(0).ops().get(0));
        assertEquals("a", allReduce.side(OpSide.Role.SEND).buffer());
        assertEquals("e", allReduce.side(OpSide.Role.RECV).buffer());
        assertEquals(8, allReduce.knownCount().orElseThrow());
        assertEquals(ReduceOp.SUM, allReduce.reduction().orElseThrow());
        assertTrue(allReduce.root().isEmpty() && allReduce.peer().isEmpty());
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
                        a.method(),
                        a.kind(),
                        a.name(),
                        a.type(),
                        null,
                        a.root(),
                        a.registered(),
                        a.legacyServedByIbSharp(),
                        a.allocation(),
                        a.placement(),
                        a.window(),
                        a.windowSymmetric()));
        assertThrows(NullPointerException.class, () -> new ValidatedBuffer.Placement("a", null));
        assertThrows(NullPointerException.class, () -> new ValidatedBuffer.Allocation(null, null));
    }

    /** Reads and validates the pipeline in {@code lines} (package {@code test}) as the processor does. */
    private static ValidatedPipeline validated(String... lines) {
        List<String> source = new ArrayList<>(
                List.of("package test;", "import dev.collectives.annotation.*;", "import dev.collectives.runtime.*;"));
        source.addAll(List.of(lines));
        List<ValidatedPipeline> validated = new ArrayList<>();
        Compilation compilation = Compiler.javac()
                .withProcessors(new Validating(validated))
                .compile(JavaFileObjects.forSourceLines("test.P", source));
        assertThat(compilation).succeeded();
        assertEquals(1, validated.size());
        return validated.get(0);
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
