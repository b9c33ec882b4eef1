package dev.collectives.processor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.function.UnaryOperator;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

/**
 * The Collectives processor behind a ProcessingEnvironment changed by the test: a proxy is no javac environment
 * (as under Gradle's incremental processing), and single methods can be made to answer differently.
 */
final class WrappedProcessor extends AbstractProcessor {
    private final CollectivesProcessor processor = new CollectivesProcessor();
    private final UnaryOperator<ProcessingEnvironment> wrap;

    WrappedProcessor(UnaryOperator<ProcessingEnvironment> wrap) {
        this.wrap = wrap;
    }

    /** A proxy of {@code delegate} whose method {@code name} answers {@code answer.invoke(args)}. */
    static <T> T override(Class<T> type, T delegate, String name, Answer answer) {
        return type.cast(Proxy.newProxyInstance(
                type.getClassLoader(),
                new Class<?>[] {type},
                (proxy, method, args) ->
                        method.getName().equals(name) ? answer.invoke(args) : invoke(method, delegate, args)));
    }

    /** A proxy of the whole environment, answering everything as {@code env} does. */
    static ProcessingEnvironment opaque(ProcessingEnvironment env) {
        return override(ProcessingEnvironment.class, env, "", args -> null);
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @FunctionalInterface
    interface Answer {
        Object invoke(Object[] args) throws Throwable;
    }

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
        processor.init(wrap.apply(env));
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        return processor.process(annotations, round);
    }
}
