package dev.collectives.processor;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;
import javax.tools.Diagnostic;

import com.google.auto.service.AutoService;

import dev.collectives.processor.model.Mirrors;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.RepeatedAnnotations;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.SourceOrder;
import dev.collectives.processor.model.Unresolved;
import dev.collectives.processor.validation.Diagnostics;
import dev.collectives.processor.validation.Tag;
import dev.collectives.processor.validation.Validator;
import dev.collectives.processor.validation.Validators;
import dev.collectives.processor.writer.PipelineWriter;
import dev.collectives.rules.Message;

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
    /** Pipelines waiting for types another processor may generate, by qualified name. */
    private final Set<String> deferred = new LinkedHashSet<>();
    /** Generated class names handed out so far, with the pipeline each was generated for. */
    private final Map<String, TypeElement> generatedNames = new HashMap<>();
    /** The processor option giving the address of the rules page. */
    public static final String RULES_URL_OPTION = "collectives.rulesUrl";

    private final PipelineWriter writer = new PipelineWriter();
    private SourceOrder sourceOrder;
    private RepeatedAnnotations repeatedAnnotations;
    /** Stateless, so made once for every pipeline of every round. */
    private List<Validator> validators;

    @Override
    public synchronized void init(ProcessingEnvironment env) {
        super.init(env);
        sourceOrder = SourceOrder.of(env);
        repeatedAnnotations = RepeatedAnnotations.of(env);
        validators = Validators.all(env);
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
        reportMembersOutsidePipelines(annotations, round);
        for (Element element : pipelines) {
            try {
                process(element, round.processingOver());
            } catch (RuntimeException | LinkageError | StackOverflowError e) {
                processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, "[internal] the Collectives processor "
                        + "failed on " + element + ": " + e + " (please report it with this declaration)", element);
            }
        }
        return true;
    }

    /**
     * DSL annotations on the methods of a type without {@code @CollectivePipeline}: nothing is generated for it, and
     * without this error the code using it would only see "cannot find symbol Collective...". Once per type.
     */
    private void reportMembersOutsidePipelines(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        Set<TypeElement> types = new LinkedHashSet<>();
        for (TypeElement annotation : annotations) {
            if (annotation.getQualifiedName().toString().startsWith(ModelReader.PACKAGE)) {
                for (Element e : round.getElementsAnnotatedWith(annotation)) {
                    if (e.getKind() == ElementKind.METHOD && e.getEnclosingElement() instanceof TypeElement type
                            && pipelineMirror(type) == null) {
                        types.add(type);
                    }
                }
            }
        }
        for (TypeElement type : types) {
            ExecutableElement member = ElementFilter.methodsIn(type.getEnclosedElements()).stream()
                    .filter(m -> !dslAnnotations(m).isEmpty()).findFirst().orElseThrow();
            newDiagnostics().error(Tag.PIPELINE, Site.of(type), "`" + type.getSimpleName() + "` is not annotated "
                    + "@CollectivePipeline, so no " + PipelineWriter.generatedName(type) + " is generated for it, yet `"
                    + member.getSimpleName() + "()` carries " + dslAnnotations(member) + "; annotate `"
                    + type.getSimpleName() + "` with @CollectivePipeline(registration = Registration.LOCAL) (or "
                    + "GRAPH, NONE)");
        }
    }

    /** The DSL annotations on {@code method}, as written ("@Buffer @Window"); empty when it has none. */
    private static String dslAnnotations(ExecutableElement method) {
        return method.getAnnotationMirrors().stream()
                .filter(m -> Mirrors.qualifiedName(m).startsWith(ModelReader.PACKAGE))
                .map(m -> "@" + m.getAnnotationType().asElement().getSimpleName())
                .collect(Collectors.joining(" "));
    }

    private static AnnotationMirror pipelineMirror(TypeElement type) {
        return type.getAnnotationMirrors().stream()
                .filter(m -> Mirrors.qualifiedName(m).equals(ModelReader.PIPELINE))
                .findFirst().orElse(null);
    }

    private Diagnostics newDiagnostics() {
        return new Diagnostics(processingEnv.getMessager(), processingEnv.getOptions().get(RULES_URL_OPTION),
                repeatedAnnotations);
    }

    private void process(Element element, boolean lastRound) {
        if (!(element instanceof TypeElement type)) {
            return;
        }
        List<Unresolved> unresolved = Unresolved.in(type);
        if (!unresolved.isEmpty() && !lastRound) {
            // another processor may generate these types in this round: look again in the next one
            deferred.add(type.getQualifiedName().toString());
            return;
        }
        AnnotationMirror mirror = pipelineMirror(type);
        if (mirror == null) {
            return;
        }
        PipelineModel model = new ModelReader(processingEnv.getElementUtils(), sourceOrder).read(type, mirror);
        Diagnostics diagnostics = newDiagnostics();
        unresolved.forEach(u -> reportUnresolved(u, diagnostics));
        validators.forEach(v -> v.validate(model, diagnostics));
        String generatedName = claimGeneratedName(model, diagnostics);
        if (diagnostics.hasErrors() || !Validators.complete(model) || generatedName == null) {
            return;
        }
        try {
            writer.write(model).writeTo(processingEnv.getFiler());
        } catch (IOException e) {
            processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, "[internal] cannot write "
                    + PipelineWriter.generatedName(model) + ": " + e, type);
        }
    }

    /** Still unresolved in the last round: no processor generated it. */
    private static void reportUnresolved(Unresolved missing, Diagnostics diagnostics) {
        if ("customAllocator".equals(missing.attribute())) {
            if (missing.written() == null) { // a resolvable-but-wrong class is R11's validator's to report
                diagnostics.error(Message.R11_UNRESOLVED, missing.site());
            }
        } else {
            diagnostics.error(Tag.PIPELINE, missing.site(), missing.describe() + " cannot be found, nor did any "
                    + "annotation processor generate it; no class was generated for this pipeline");
        }
    }

    /**
     * The generated class's qualified name, or null when another pipeline (say {@code Outer.Inner} and
     * {@code Outer_Inner}) already took it or the package already has a type of that name.
     */
    private String claimGeneratedName(PipelineModel model, Diagnostics diagnostics) {
        TypeElement type = model.type();
        String name = processingEnv.getElementUtils().getPackageOf(type).getQualifiedName() + "."
                + PipelineWriter.generatedName(model);
        TypeElement first = generatedNames.putIfAbsent(name, type);
        if (first != null && !first.equals(type)) {
            diagnostics.error(Tag.DUPLICATE, model.site(), "pipelines `" + first.getQualifiedName() + "` and `"
                    + type.getQualifiedName() + "` would both generate " + name + "; rename one of them");
            return null;
        }
        // unqualified, as the Filer's own check of the same name does next: javac keeps the answer for the round, so
        // the Filer finds it kept; asked per module, javac would look the name up twice
        TypeElement existing = processingEnv.getElementUtils().getTypeElement(name);
        if (first == null && existing != null && !processingEnv.getTypeUtils().isAssignable(existing.asType(),
                processingEnv.getTypeUtils().erasure(type.asType()))) {
            diagnostics.error(Tag.DUPLICATE, model.site(), "the class generated for `" + type.getSimpleName()
                    + "` would be " + name + ", but a type of that name already exists; rename one of them");
            generatedNames.remove(name);
            return null;
        }
        return name;
    }
}
