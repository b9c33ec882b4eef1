package dev.collectives.processor.validation;

import dev.collectives.annotation.HandleType;
import dev.collectives.processor.model.Mirrors;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;

/** Reads a custom allocator class's {@code @QualifiedAllocator} declaration (R3, R11). */
final class Allocators {
    static final String QUALIFIED = "dev.collectives.annotation.QualifiedAllocator";

    private Allocators() {}

    static Optional<TypeElement> classOf(TypeMirror type) {
        return type instanceof DeclaredType declared && declared.asElement() instanceof TypeElement element
                ? Optional.of(element)
                : Optional.empty();
    }

    /** The declared handle types, or empty when the class is not annotated @QualifiedAllocator. */
    static Optional<Set<HandleType>> handleTypes(Elements elements, TypeElement allocator) {
        for (AnnotationMirror m : allocator.getAnnotationMirrors()) {
            if (Mirrors.qualifiedName(m).equals(QUALIFIED)) {
                Set<HandleType> handles = EnumSet.noneOf(HandleType.class);
                for (AnnotationValue v :
                        Mirrors.list(Mirrors.valuesWithDefaults(elements, m).get("handleTypes"))) {
                    HandleType h = Mirrors.enumValue(v, HandleType.class);
                    if (h != null) {
                        handles.add(h);
                    }
                }
                return Optional.of(handles);
            }
        }
        return Optional.empty();
    }
}
