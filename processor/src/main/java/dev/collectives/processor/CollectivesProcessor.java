package dev.collectives.processor;

import java.io.IOException;
import java.util.Set;

import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;

import com.google.auto.service.AutoService;

import dev.collectives.processor.model.Mirrors;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.SourceOrder;
import dev.collectives.processor.validation.Diagnostics;
import dev.collectives.processor.validation.Validators;
import dev.collectives.processor.writer.PipelineWriter;

/**
 * Checks each {@code @CollectivePipeline} type against the registration rules and generates its
 * {@code Collective<Name>} class: model (read the annotation mirrors) → validation (one validator per rule) →
 * writer. Bad input gets diagnostics, never an exception out of {@link #process}; a pipeline with errors gets no
 * generated class.
 *
 * <p>One option: {@code -Acollectives.rulesUrl=URL}, the address of the rules page, turns the pointer that ends
 * every diagnostic ({@code (see docs/rules.md#r7-arena)}) into a link: {@code (see URL#r7-arena)}.
 */
@AutoService(Processor.class)
public final class CollectivesProcessor extends AbstractProcessor {
    /** The processor option giving the address of the rules page. */
    public static final String RULES_URL_OPTION = "collectives.rulesUrl";

    private SourceOrder sourceOrder;

    @Override
    public synchronized void init(ProcessingEnvironment env) {
        super.init(env);
        sourceOrder = SourceOrder.of(env);
    }

    @Override
    public Set<String> getSupportedOptions() {
        return Set.of(RULES_URL_OPTION);
    }

    @Override
    public Set<String> getSupportedAnnotationTypes() {
        return Set.of("dev.collectives.annotation.*");
    }

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        TypeElement pipelineAnnotation = processingEnv.getElementUtils().getTypeElement(ModelReader.PIPELINE);
        if (pipelineAnnotation == null) {
            return false;
        }
        for (Element element : round.getElementsAnnotatedWith(pipelineAnnotation)) {
            try {
                process(element);
            } catch (RuntimeException | LinkageError | StackOverflowError e) {
                processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, "[internal] the Collectives processor "
                        + "failed on " + element + ": " + e + " (please report it with this declaration)", element);
            }
        }
        return true;
    }

    private void process(Element element) {
        if (!(element instanceof TypeElement type)) {
            return;
        }
        AnnotationMirror mirror = type.getAnnotationMirrors().stream()
                .filter(m -> Mirrors.qualifiedName(m).equals(ModelReader.PIPELINE))
                .findFirst().orElse(null);
        if (mirror == null) {
            return;
        }
        PipelineModel model = new ModelReader(processingEnv.getElementUtils(), sourceOrder).read(type, mirror);
        Diagnostics diagnostics = new Diagnostics(processingEnv.getMessager(),
                processingEnv.getOptions().get(RULES_URL_OPTION));
        Validators.all(processingEnv).forEach(v -> v.validate(model, diagnostics));
        if (diagnostics.hasErrors() || !Validators.complete(model)) {
            return;
        }
        try {
            new PipelineWriter().write(model).writeTo(processingEnv.getFiler());
        } catch (IOException e) {
            processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, "[internal] cannot write "
                    + PipelineWriter.generatedName(model) + ": " + e, type);
        }
    }
}
