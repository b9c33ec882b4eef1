package dev.collectives.processor.validation;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.Mirrors;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.StepDecl;

/**
 * [DSL duplicate]: every accessor and step has its own name (ops name buffers by it), an accessor is declared by one
 * of @Buffer, @View, @External, and no member takes a name the generated class needs (Pipeline's close, describe).
 */
final class DslDuplicateValidator implements Validator {
    private static final Set<String> RESERVED = Set.of("close", "describe");

    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        Map<String, ExecutableElement> seen = new HashMap<>();
        for (BufferDecl b : model.buffers()) {
            check(seen, b.method(), diagnostics);
            for (AnnotationMirror m : b.stray()) {
                if (ModelReader.isAccessorAnnotation(Mirrors.qualifiedName(m))) {
                    diagnostics.error(Tag.DUPLICATE, new Site(b.method(), m, null), "`" + b.name() + "()` is already "
                            + "declared by " + b.kind().annotation() + "; keep one of " + b.kind().annotation()
                            + " and @" + m.getAnnotationType().asElement().getSimpleName());
                }
            }
        }
        for (StepDecl s : model.steps()) {
            check(seen, s.method(), diagnostics);
        }
        for (ExecutableElement m : model.unannotated()) {
            check(seen, m, diagnostics);
        }
    }

    private static void check(Map<String, ExecutableElement> seen, ExecutableElement method, Diagnostics diagnostics) {
        String name = method.getSimpleName().toString();
        if (RESERVED.contains(name) && method.getParameters().isEmpty()) {
            diagnostics.error(Tag.DUPLICATE, Site.of(method), "`" + name + "()` clashes with Pipeline." + name
                    + "(), which the generated class implements; rename it");
        }
        ExecutableElement first = seen.putIfAbsent(name, method);
        if (first != null) {
            diagnostics.error(Tag.DUPLICATE, Site.of(method), "`" + name + "` is declared twice (" + first + " and "
                    + method + "); ops refer to buffers and steps by name, so each name must be unique");
        }
    }
}
