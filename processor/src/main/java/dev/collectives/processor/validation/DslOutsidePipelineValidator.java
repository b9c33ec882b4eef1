package dev.collectives.processor.validation;

import dev.collectives.processor.model.Mirrors;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.stream.Collectors;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.ElementFilter;

/**
 * [DSL pipeline]: DSL annotations on the methods of a type without {@code @CollectivePipeline}. Nothing is generated
 * for it, and without this error the code using it would only see "cannot find symbol Collective...". Once per type.
 */
final class DslOutsidePipelineValidator implements Validator {
    @Override
    public void validateRound(Set<? extends TypeElement> annotations, RoundEnvironment round, Diagnostics diagnostics) {
        Set<TypeElement> types = new LinkedHashSet<>();
        for (TypeElement annotation : annotations) {
            if (annotation.getQualifiedName().toString().startsWith(ModelReader.PACKAGE)) {
                for (Element e : round.getElementsAnnotatedWith(annotation)) {
                    if (e.getKind() == ElementKind.METHOD
                            && e.getEnclosingElement() instanceof TypeElement type
                            && ModelReader.pipelineMirror(type).isEmpty()) {
                        types.add(type);
                    }
                }
            }
        }
        for (TypeElement type : types) {
            ExecutableElement member = ElementFilter.methodsIn(type.getEnclosedElements()).stream()
                    .filter(m -> !dslAnnotations(m).isEmpty())
                    .findFirst()
                    .orElseThrow();
            diagnostics.error(
                    Tag.PIPELINE,
                    Site.of(type),
                    "`" + type.getSimpleName() + "` is not annotated "
                            + "@CollectivePipeline, so no " + PipelineModel.generatedName(type)
                            + " is generated for it, yet `"
                            + member.getSimpleName() + "()` carries " + dslAnnotations(member) + "; annotate `"
                            + type.getSimpleName()
                            + "` with @CollectivePipeline(registration = Registration.LOCAL) (or "
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
}
