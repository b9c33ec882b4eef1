package dev.collectives.processor.writer;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.TypeSpec;
import dev.collectives.processor.validation.ValidatedPipeline;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;

/**
 * A {@code @Deprecated} pipeline or member must not make its generated class warn: the class implementing a
 * deprecated pipeline is deprecated too, and the deprecation and removal warnings that implementing deprecated
 * types and methods raises in it are suppressed (the user who deprecated them is warned where they are used).
 */
final class Deprecation {
    private Deprecation() {}

    static void annotate(TypeSpec.Builder type, ValidatedPipeline pipeline) {
        List<Element> deprecated = new ArrayList<>();
        if (isDeprecated(pipeline.type())) {
            deprecated.add(pipeline.type());
            type.addAnnotation(Deprecated.class);
        }
        pipeline.type().getEnclosedElements().stream()
                .filter(e -> e.getKind() == ElementKind.METHOD && isDeprecated(e))
                .forEach(deprecated::add);
        List<CodeBlock> warnings = new ArrayList<>();
        if (deprecated.stream().anyMatch(e -> !forRemoval(e))) {
            warnings.add(CodeBlock.of("$S", "deprecation"));
        }
        if (deprecated.stream().anyMatch(Deprecation::forRemoval)) {
            warnings.add(CodeBlock.of("$S", "removal"));
        }
        if (!warnings.isEmpty()) {
            type.addAnnotation(AnnotationSpec.builder(SuppressWarnings.class)
                    .addMember("value", warnings.size() == 1 ? "$L" : "{$L}", CodeBlock.join(warnings, ", "))
                    .build());
        }
    }

    private static boolean isDeprecated(Element element) {
        return deprecated(element) != null;
    }

    private static boolean forRemoval(Element element) {
        AnnotationMirror mirror = deprecated(element);
        return mirror != null
                && mirror.getElementValues().entrySet().stream()
                        .anyMatch(e -> e.getKey().getSimpleName().contentEquals("forRemoval")
                                && Boolean.TRUE.equals(e.getValue().getValue()));
    }

    private static AnnotationMirror deprecated(Element element) {
        for (AnnotationMirror m : element.getAnnotationMirrors()) {
            if (m.getAnnotationType().toString().equals(Deprecated.class.getName())) {
                return m;
            }
        }
        return null;
    }
}
