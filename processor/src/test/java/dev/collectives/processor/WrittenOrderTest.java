package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import org.junit.jupiter.api.Test;

/**
 * Ops of a step run in the order written. javac gathers repeated annotations into a container at the first one's
 * place; the processor reads the written order from the compiler's trees, and where a compiler hides them (Gradle
 * wraps the environment) and the order is ambiguous, it says so.
 */
class WrittenOrderTest {
    private static Sources interleaved() {
        return Sources.pipeline(
                "registration = Registration.NONE",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();",
                "  @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();",
                "  @AllReduce(send = \"a\", recv = \"b\", count = 8)",
                "  @Broadcast(send = \"a\", recv = \"b\", count = 8)",
                "  @AllReduce(send = \"a\", recv = \"b\", count = 4)",
                "  void step();");
    }

    @Test
    void interleavedKindsRunAsWritten() throws java.io.IOException {
        Compilation compilation = Sources.compiler(true).compile(interleaved().file());
        assertThat(compilation).succeededWithoutWarnings();
        String generated = compilation
                .generatedSourceFile("test.CollectiveP")
                .orElseThrow()
                .getCharContent(true)
                .toString();
        int first = generated.indexOf("comm.allReduce(a, b, 8L");
        int broadcast = generated.indexOf("comm.broadcast(a, b, 8L");
        int second = generated.indexOf("comm.allReduce(a, b, 4L");
        org.junit.jupiter.api.Assertions.assertTrue(0 <= first && first < broadcast && broadcast < second, generated);
    }

    @Test
    void withoutTheCompilersTreesAnAmbiguousOrderIsAWarning() {
        Sources s = interleaved();
        Compilation compilation = Sources.compiler(false)
                .withProcessors(new WrappedProcessor(WrappedProcessor::opaque))
                .compile(s.file());
        assertThat(compilation).succeeded();
        assertThat(compilation)
                .hadWarningContaining("[DSL step] step `step()` repeats ops of one kind among ops of "
                        + "another, and this compiler does not expose the order they are written in; they run as "
                        + "[@AllReduce, @AllReduce, @Broadcast]")
                .inFile(s.file())
                .onLine(s.line("void step()"));
    }
}
