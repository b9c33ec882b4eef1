package dev.collectives.processor.validation;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.Mirrors;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.StepDecl;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;

/**
 * [DSL duplicate]: every accessor and step has its own name (ops name buffers by it), an accessor is declared by one
 * of @Buffer, @View, @External, and no member takes a name the generated class needs: Pipeline's close and
 * describe, the static bind, each window's {@code <buffer>Window()} accessor, or a method of Object.
 */
final class DslDuplicateValidator implements Validator {
    private static final Set<String> PIPELINE_METHODS = Set.of("close", "describe");
    /** The generated class's static factories: an inherited instance method of the same name would clash. */
    private static final Set<String> FACTORIES = Set.of("bind", "binder");

    private static final Set<String> OBJECT_METHODS =
            Set.of("clone", "equals", "finalize", "getClass", "hashCode", "notify", "notifyAll", "toString", "wait");

    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        Map<String, ExecutableElement> seen = new HashMap<>();
        for (BufferDecl b : model.buffers()) {
            check(seen, b.method(), diagnostics);
            for (AnnotationMirror m : b.stray()) {
                if (ModelReader.isAccessorAnnotation(Mirrors.qualifiedName(m))) {
                    diagnostics.error(
                            Tag.DUPLICATE,
                            new Site(b.method(), m, null),
                            "`" + b.name() + "()` is already "
                                    + "declared by " + b.kind().annotation() + "; keep one of "
                                    + b.kind().annotation()
                                    + " and @"
                                    + m.getAnnotationType().asElement().getSimpleName());
                }
            }
        }
        for (StepDecl s : model.steps()) {
            check(seen, s.method(), diagnostics);
        }
        for (ExecutableElement m : model.unannotated()) {
            check(seen, m, diagnostics);
        }
        for (Element member : model.type().getEnclosedElements()) {
            if (member.getKind() == ElementKind.METHOD && member.getModifiers().contains(Modifier.DEFAULT)) {
                checkDefault((ExecutableElement) member, diagnostics);
            }
        }
        checkWindowAccessors(model, diagnostics);
    }

    private static void check(Map<String, ExecutableElement> seen, ExecutableElement method, Diagnostics diagnostics) {
        String name = method.getSimpleName().toString();
        if (PIPELINE_METHODS.contains(name) && method.getParameters().isEmpty()) {
            diagnostics.error(
                    Tag.DUPLICATE,
                    Site.of(method),
                    "`" + name + "()` clashes with Pipeline." + name
                            + "(), which the generated class implements; rename it");
        } else if (OBJECT_METHODS.contains(name)) {
            diagnostics.error(
                    Tag.DUPLICATE,
                    Site.of(method),
                    "`" + name + "` is a method of Object; the generated "
                            + "class cannot implement an accessor or step of that name: rename it");
        }
        ExecutableElement first = seen.putIfAbsent(name, method);
        if (first != null) {
            diagnostics.error(
                    Tag.DUPLICATE,
                    Site.of(method),
                    "`" + name + "` is declared twice (" + first + " and " + method
                            + "); ops refer to buffers and steps by name, so each name must be unique");
        }
    }

    /** A default method is inherited by the generated class, so it must not take one of the class's own names. */
    private static void checkDefault(ExecutableElement method, Diagnostics diagnostics) {
        String name = method.getSimpleName().toString();
        if (PIPELINE_METHODS.contains(name) && method.getParameters().isEmpty()) {
            diagnostics.error(
                    Tag.DUPLICATE,
                    Site.of(method),
                    "default method `" + name + "()` would be replaced by " + "the generated Pipeline." + name
                            + "(); rename it");
        } else if (FACTORIES.contains(name)) {
            diagnostics.error(
                    Tag.DUPLICATE,
                    Site.of(method),
                    "default method `" + name + "` clashes with the " + "generated class's static " + name
                            + "(comm, stream, ...); rename it");
        }
    }

    /** The generated class adds {@code <buffer>Window()} for each window; no member may already have that name. */
    private static void checkWindowAccessors(PipelineModel model, Diagnostics diagnostics) {
        for (BufferDecl b : model.buffers()) {
            if (!b.isWindow()) {
                continue;
            }
            String accessor = b.name() + "Window";
            for (Element member : model.type().getEnclosedElements()) {
                if (member.getKind() == ElementKind.METHOD
                        && member.getSimpleName().contentEquals(accessor)
                        && !member.getModifiers().contains(Modifier.STATIC)
                        && !member.getModifiers().contains(Modifier.PRIVATE)) {
                    diagnostics.error(
                            Tag.DUPLICATE,
                            Site.of(member),
                            "`" + accessor + "` clashes with the accessor "
                                    + "of the window registered on `" + b.name()
                                    + "`, which the generated class adds as `"
                                    + accessor + "()`; rename it");
                }
            }
        }
    }
}
