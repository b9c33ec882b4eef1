package dev.collectives.processor.validation;

import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.Mirrors;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.processor.model.StepDecl;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;

/**
 * [DSL accessor]: an accessor is an abstract method with no parameters returning DeviceBuffer, annotated with one of
 * @Buffer, @View, @External (and optionally @Window); it carries no ops.
 */
final class DslAccessorValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (BufferDecl b : model.buffers()) {
            ExecutableElement m = b.method();
            if (!Methods.returnsDeviceBuffer(m)) {
                diagnostics.error(
                        Tag.ACCESSOR,
                        b.site(),
                        "accessor `" + b.name() + "()` returns `" + m.getReturnType() + "`; "
                                + b.kind().annotation() + " accessors return DeviceBuffer");
            }
            if (!m.getParameters().isEmpty() || !m.getTypeParameters().isEmpty()) {
                diagnostics.error(
                        Tag.ACCESSOR,
                        b.site(),
                        "accessor `" + b.name() + "` takes "
                                + (m.getParameters().isEmpty() ? "type parameters" : "parameters")
                                + "; accessors are plain `DeviceBuffer " + b.name() + "()`");
            }
            for (AnnotationMirror stray : b.stray()) {
                if (!ModelReader.isAccessorAnnotation(Mirrors.qualifiedName(stray))) {
                    diagnostics.error(
                            Tag.ACCESSOR,
                            new Site(m, stray, null),
                            "accessor `" + b.name() + "()` carries @"
                                    + stray.getAnnotationType().asElement().getSimpleName() + "; ops, @Grouped and "
                                    + "@WrittenOrder belong on a void step method, not on an accessor");
                }
            }
        }
        for (StepDecl s : model.steps()) {
            for (AnnotationMirror stray : s.stray()) {
                if (Mirrors.qualifiedName(stray).equals(ModelReader.WINDOW)) {
                    diagnostics.error(
                            Tag.ACCESSOR,
                            new Site(s.method(), stray, null),
                            "@Window on `" + s.name()
                                    + "()` needs @Buffer beside it: a window is registered on a buffer the pipeline declares");
                }
            }
        }
        for (ExecutableElement m : model.unannotated()) {
            if (Methods.returnsDeviceBuffer(m)) {
                diagnostics.error(
                        Tag.ACCESSOR,
                        Site.of(m),
                        "`" + m.getSimpleName() + "()` returns DeviceBuffer but "
                                + "has no @Buffer, @View or @External: say where its memory comes from");
            }
        }
    }
}
