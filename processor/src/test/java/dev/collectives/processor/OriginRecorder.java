package dev.collectives.processor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Filer;
import javax.annotation.processing.Messager;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.FileObject;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;

/**
 * Runs a processor with a Filer that records each created source file's originating elements, as Gradle's
 * isolating mode relies on (exactly one per generated file).
 */
final class OriginRecorder extends AbstractProcessor {
    private final AbstractProcessor delegate;
    private final Map<String, List<String>> origins = new TreeMap<>();

    OriginRecorder(AbstractProcessor delegate) {
        this.delegate = delegate;
    }

    Map<String, List<String>> origins() {
        return origins;
    }

    @Override
    public Set<String> getSupportedAnnotationTypes() {
        return delegate.getSupportedAnnotationTypes();
    }

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return delegate.getSupportedSourceVersion();
    }

    @Override
    public synchronized void init(ProcessingEnvironment env) {
        super.init(env);
        Filer filer = env.getFiler();
        Filer recording = new Filer() {
            @Override
            public JavaFileObject createSourceFile(CharSequence name, Element... originatingElements)
                    throws IOException {
                List<String> names = new ArrayList<>();
                for (Element e : originatingElements) {
                    names.add(((TypeElement) e).getQualifiedName().toString());
                }
                origins.put(name.toString(), names);
                return filer.createSourceFile(name, originatingElements);
            }

            @Override
            public JavaFileObject createClassFile(CharSequence name, Element... originatingElements)
                    throws IOException {
                return filer.createClassFile(name, originatingElements);
            }

            @Override
            public FileObject createResource(JavaFileManager.Location location, CharSequence moduleAndPkg,
                                             CharSequence relativeName, Element... originatingElements)
                    throws IOException {
                return filer.createResource(location, moduleAndPkg, relativeName, originatingElements);
            }

            @Override
            public FileObject getResource(JavaFileManager.Location location, CharSequence moduleAndPkg,
                                          CharSequence relativeName) throws IOException {
                return filer.getResource(location, moduleAndPkg, relativeName);
            }
        };
        delegate.init(new ProcessingEnvironment() {
            @Override
            public Map<String, String> getOptions() {
                return env.getOptions();
            }

            @Override
            public Messager getMessager() {
                return env.getMessager();
            }

            @Override
            public Filer getFiler() {
                return recording;
            }

            @Override
            public Elements getElementUtils() {
                return env.getElementUtils();
            }

            @Override
            public Types getTypeUtils() {
                return env.getTypeUtils();
            }

            @Override
            public SourceVersion getSourceVersion() {
                return env.getSourceVersion();
            }

            @Override
            public Locale getLocale() {
                return env.getLocale();
            }
        });
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        return delegate.process(annotations, round);
    }
}
