package dev.collectives.processor;

import com.google.auto.service.AutoService;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.RepeatedAnnotations;
import dev.collectives.processor.model.SourceOrder;
import dev.collectives.processor.validation.Diagnostics;
import dev.collectives.processor.validation.ValidatedPipeline;
import dev.collectives.processor.validation.Validation;
import dev.collectives.processor.validation.Validators;
import dev.collectives.processor.writer.PipelineWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
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

/**
 * Checks each {@code @CollectivePipeline} type against the registration rules and generates its
 * {@code Collective<Name>} class: model (the annotation mirrors as read) → validation (one validator per rule;
 * diagnostics, or a validated pipeline) → writer (of a validated pipeline only). Bad input gets diagnostics, never an
 * exception out of {@link #process}; a pipeline with errors gets no generated class.
 *
 * <p>One option: {@code -Acollectives.rulesUrl=URL}, the address of the rules page, turns the pointer that ends
 * every diagnostic ({@code (see docs/rules.md#r7-arena)}) into a link: {@code (see URL#r7-arena)}.
 */
@AutoService(Processor.class)
public final class CollectivesProcessor extends AbstractProcessor {
    /** Pipelines waiting for types another processor may generate, by qualified name. */
    private final Set<String> deferred = new LinkedHashSet<>();
    /** The processor option giving the address of the rules page. */
    public static final String RULES_URL_OPTION = "collectives.rulesUrl";

    private final PipelineWriter writer = new PipelineWriter();
    private SourceOrder sourceOrder;
    private RepeatedAnnotations repeatedAnnotations;
    /** Made once for every pipeline of every round: the names of generated classes are claimed across rounds. */
    private Validation validation;

    @Override
    public synchronized void init(ProcessingEnvironment env) {
        super.init(env);
        sourceOrder = SourceOrder.of(env);
        repeatedAnnotations = RepeatedAnnotations.of(env);
        validation = new Validation(Validators.all(env));
    }

    @Override
    public Set<String> getSupportedOptions() {
        return Set.of(RULES_URL_OPTION);
    }

    @Override
    public Set<String> getSupportedAnnotationTypes() {
        // the generated classes' @Generated too: unclaimed, it warns under -Xlint:processing in the next round
        return Set.of("dev.collectives.annotation.*", "javax.annotation.processing.Generated");
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
        List<Element> pipelines = new ArrayList<>();
        deferred.forEach(name -> pipelines.add(processingEnv.getElementUtils().getTypeElement(name)));
        deferred.clear();
        if (annotations.contains(pipelineAnnotation)) {
            // else this round's sources hold none (the generated classes' round has only @Generated): no scan
            pipelines.addAll(round.getElementsAnnotatedWith(pipelineAnnotation));
        }
        validation.validateRound(annotations, round, newDiagnostics());
        for (Element element : pipelines) {
            try {
                process(element, round.processingOver());
            } catch (RuntimeException | LinkageError | StackOverflowError e) {
                processingEnv
                        .getMessager()
                        .printMessage(
                                Diagnostic.Kind.ERROR,
                                "[internal] the Collectives processor " + "failed on " + element + ": " + e
                                        + " (please report it with this declaration)",
                                element);
            }
        }
        return true;
    }

    private Diagnostics newDiagnostics() {
        return new Diagnostics(
                processingEnv.getMessager(), processingEnv.getOptions().get(RULES_URL_OPTION), repeatedAnnotations);
    }

    private void process(Element element, boolean lastRound) {
        if (!(element instanceof TypeElement type)) {
            return;
        }
        Optional<AnnotationMirror> mirror = ModelReader.pipelineMirror(type);
        if (mirror.isEmpty()) {
            return;
        }
        PipelineModel model = new ModelReader(processingEnv.getElementUtils(), sourceOrder).read(type, mirror.get());
        if (!model.unresolved().isEmpty() && !lastRound) {
            // another processor may generate these types in this round: look again in the next one
            deferred.add(type.getQualifiedName().toString());
            return;
        }
        Optional<ValidatedPipeline> validated = validation.validate(model, newDiagnostics());
        if (validated.isEmpty()) {
            return;
        }
        try {
            writer.write(validated.get()).writeTo(processingEnv.getFiler());
        } catch (IOException e) {
            processingEnv
                    .getMessager()
                    .printMessage(
                            Diagnostic.Kind.ERROR, "[internal] cannot write " + model.generatedName() + ": " + e, type);
        }
    }
}
