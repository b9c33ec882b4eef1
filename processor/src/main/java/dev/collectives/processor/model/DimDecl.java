package dev.collectives.processor.model;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.TypeKind;

/** A {@code @Dim} accessor: a size given at bind. */
public final class DimDecl extends Annotated {
    private final ExecutableElement method;

    DimDecl(ExecutableElement method, AnnotationMirror mirror) {
        super(method, mirror);
        this.method = method;
    }

    public ExecutableElement method() {
        return method;
    }

    public String name() {
        return method.getSimpleName().toString();
    }

    /** {@code int} or {@code long}; any other return type is [DSL dim]'s to report. */
    public TypeKind kind() {
        return method.getReturnType().getKind();
    }

    @Override
    public String toString() {
        return "@Dim " + name() + "()";
    }
}
