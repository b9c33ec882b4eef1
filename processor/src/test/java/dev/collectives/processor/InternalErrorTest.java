package dev.collectives.processor;

import static com.google.testing.compile.CompilationSubject.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;

import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;

import org.junit.jupiter.api.Test;

import com.google.testing.compile.Compilation;

/** An unexpected exception inside the processor becomes an error on the pipeline, not a javac stack trace. */
class InternalErrorTest {
    /** Runs the processor with element utilities that fail when annotation values are read. */
    private static final class FailingElements extends AbstractProcessor {
        private final CollectivesProcessor processor = new CollectivesProcessor();

        @Override
        public Set<String> getSupportedAnnotationTypes() {
            return processor.getSupportedAnnotationTypes();
        }

        @Override
        public SourceVersion getSupportedSourceVersion() {
            return processor.getSupportedSourceVersion();
        }

        @Override
        public synchronized void init(ProcessingEnvironment env) {
            super.init(env);
            Elements elements = failing(Elements.class, env.getElementUtils(), "getElementValuesWithDefaults");
            processor.init(proxy(ProcessingEnvironment.class, env, "getElementUtils", elements));
        }

        @Override
        public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
            return processor.process(annotations, round);
        }

        private static <T> T failing(Class<T> type, T delegate, String method) {
            return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
                if (m.getName().equals(method)) {
                    throw new IllegalStateException("simulated failure in " + method);
                }
                return invoke(m, delegate, args);
            }));
        }

        private static <T> T proxy(Class<T> type, T delegate, String method, Object result) {
            return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                    (p, m, args) -> m.getName().equals(method) ? result : invoke(m, delegate, args)));
        }

        private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    @Test
    void unexpectedExceptionIsReportedOnTheElement() {
        Sources s = Sources.of("P",
                "@CollectivePipeline(registration = Registration.LOCAL)",
                "interface P {",
                "  @Buffer(count = 8) DeviceBuffer a();",
                "}");
        Compilation compilation = Sources.compiler(false).withProcessors(new FailingElements()).compile(s.file());
        assertThat(compilation).failed();
        assertThat(compilation).hadErrorContaining("[internal] the Collectives processor failed on test.P: "
                + "java.lang.IllegalStateException: simulated failure in getElementValuesWithDefaults")
                .inFile(s.file()).onLine(s.line("interface P"));
    }
}
