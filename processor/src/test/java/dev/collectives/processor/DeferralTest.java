package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import com.google.testing.compile.Compiler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import org.junit.jupiter.api.Test;

/**
 * Types another annotation processor generates in the same compilation: the pipeline waits for the round that has
 * them and is generated then; what no processor made is reported in the last round, tagged.
 */
class DeferralTest {
    /** Generates {@code test.LaterAllocator}, a qualified allocator, in its first round. */
    static final class AllocatorGenerator extends AbstractProcessor {
        private boolean done;

        @Override
        public Set<String> getSupportedAnnotationTypes() {
            return Set.of("*");
        }

        @Override
        public SourceVersion getSupportedSourceVersion() {
            return SourceVersion.latestSupported();
        }

        @Override
        public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
            if (!done) {
                done = true;
                try (Writer w = processingEnv
                        .getFiler()
                        .createSourceFile("test.LaterAllocator")
                        .openWriter()) {
                    w.write("package test;\n"
                            + "@dev.collectives.annotation.QualifiedAllocator(handleTypes = {"
                            + "dev.collectives.annotation.HandleType.POSIX_FILE_DESCRIPTOR, "
                            + "dev.collectives.annotation.HandleType.FABRIC})\n"
                            + "public final class LaterAllocator implements dev.collectives.runtime.DeviceAllocator {\n"
                            + "  public dev.collectives.runtime.DeviceMemory allocate(dev.collectives.runtime"
                            + ".VirtualMemory vmm, long bytes) { return null; }\n}\n");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return false;
        }
    }

    private static final Sources PIPELINE = Sources.pipeline(
            "registration = Registration.LOCAL",
            "@Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, "
                    + "customAllocator = LaterAllocator.class) DeviceBuffer a();",
            "@Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();",
            "@AllReduce(send = \"a\", recv = \"b\", count = 8) void step();");

    @Test
    void aPipelineNamingAClassAnotherProcessorGeneratesIsGeneratedInALaterRound() {
        Compilation compilation = Compiler.javac()
                .withProcessors(new AllocatorGenerator(), new CollectivesProcessor())
                .withOptions("-Xlint:all", "-Werror")
                .compile(PIPELINE.file());
        assertThat(compilation).succeededWithoutWarnings();
        assertThat(compilation)
                .generatedSourceFile("test.CollectiveP")
                .contentsAsUtf8String()
                .contains("new LaterAllocator()");
    }

    @Test
    void aClassNoProcessorGeneratesIsReportedInTheLastRoundOnItsLine() {
        Compilation compilation = PIPELINE.compile();
        assertThat(compilation)
                .hadErrorContaining("[R11 ALLOCATOR]")
                .inFile(PIPELINE.file())
                .onLine(PIPELINE.line("LaterAllocator.class"));
        assertThat(compilation).hadErrorContaining("nor did any annotation processor generate it");
    }
}
