package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import com.google.testing.compile.Compilation;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.util.Elements;
import org.junit.jupiter.api.Test;

/** An unexpected exception inside the processor becomes an error on the pipeline, not a javac stack trace. */
class InternalErrorTest {
    @Test
    void unexpectedExceptionIsReportedOnTheElement() {
        Sources s = Sources.pipeline("registration = Registration.LOCAL", "  @Buffer(count = 8) DeviceBuffer a();");
        WrappedProcessor failing = new WrappedProcessor(env -> {
            Elements elements = WrappedProcessor.override(
                    Elements.class, env.getElementUtils(), "getElementValuesWithDefaults", args -> {
                        throw new IllegalStateException("simulated failure in getElementValuesWithDefaults");
                    });
            return WrappedProcessor.override(ProcessingEnvironment.class, env, "getElementUtils", args -> elements);
        });
        Compilation compilation =
                Sources.compiler(false).withProcessors(failing).compile(s.file());
        assertThat(compilation).failed();
        assertThat(compilation)
                .hadErrorContaining("[internal] the Collectives processor failed on test.P: "
                        + "java.lang.IllegalStateException: simulated failure in getElementValuesWithDefaults")
                .inFile(s.file())
                .onLine(s.line("interface P"));
    }
}
