package dev.collectives.processor.validation;

import dev.collectives.processor.model.DimDecl;
import dev.collectives.processor.model.Mirrors;
import dev.collectives.processor.model.ModelReader;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.type.TypeKind;

/**
 * [DSL dim]: a {@code @Dim} is an abstract accessor without parameters returning {@code long} or {@code int}, with no
 * other annotation of this project, and not named {@code ranks} (the communicator's size in every expression).
 */
final class DslDimValidator implements Validator {
    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (DimDecl d : model.dims()) {
            if (d.kind() != TypeKind.LONG && d.kind() != TypeKind.INT) {
                diagnostics.error(
                        Tag.DIM,
                        d.site(),
                        "@Dim `" + d.name() + "()` returns `" + d.method().getReturnType()
                                + "`; a dim is a size: declare `long " + d.name() + "()`");
            }
            if (!d.method().getParameters().isEmpty()
                    || !d.method().getTypeParameters().isEmpty()) {
                diagnostics.error(
                        Tag.DIM,
                        d.site(),
                        "@Dim `" + d.name() + "` takes parameters; a dim is given " + "once at bind: declare `long "
                                + d.name() + "()`");
            }
            if (d.name().equals(ModelReader.RANKS)) {
                diagnostics.error(
                        Tag.DIM,
                        d.site(),
                        "@Dim `ranks()`: `ranks` is the communicator's size in every "
                                + "expression; name the dim otherwise");
            }
            for (AnnotationMirror other : d.method().getAnnotationMirrors()) {
                String name = Mirrors.qualifiedName(other);
                if (other != d.mirror() && name.startsWith("dev.collectives.annotation.")) {
                    diagnostics.error(
                            Tag.DIM,
                            new Site(d.method(), other, null),
                            "@Dim `" + d.name() + "()` also "
                                    + "carries @"
                                    + other.getAnnotationType().asElement().getSimpleName() + "; a dim is a "
                                    + "size, not a buffer or a step");
                }
            }
        }
    }
}
