package dev.collectives.processor.validation;

import dev.collectives.processor.model.ExprProblem;
import dev.collectives.processor.model.PipelineModel;
import java.util.Optional;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;

/** What validators ask of accessor and step methods. */
final class Methods {
    static final String DEVICE_BUFFER = "dev.collectives.runtime.DeviceBuffer";

    private Methods() {}

    static boolean returnsDeviceBuffer(ExecutableElement method) {
        return method.getReturnType() instanceof DeclaredType declared
                && declared.asElement() instanceof TypeElement type
                && type.getQualifiedName().contentEquals(DEVICE_BUFFER)
                && declared.getTypeArguments().isEmpty();
    }

    static boolean returnsVoid(ExecutableElement method) {
        return method.getReturnType().getKind() == TypeKind.VOID;
    }

    /**
     * The method without annotations that an expression names as if it were a dim: {@code long elements()} (or
     * {@code int}, without parameters), its {@code @Dim} forgotten.
     */
    static Optional<ExecutableElement> missingDim(PipelineModel model, String name) {
        return model.unannotated().stream()
                .filter(m -> m.getSimpleName().contentEquals(name)
                        && m.getParameters().isEmpty()
                        && (m.getReturnType().getKind() == TypeKind.LONG
                                || m.getReturnType().getKind() == TypeKind.INT))
                .findFirst();
    }

    /** Whether {@code name} is a DeviceBuffer accessor without @Buffer, @View or @External ([DSL accessor]'s). */
    static boolean unannotatedAccessor(PipelineModel model, String name) {
        return model.unannotated().stream()
                .anyMatch(m -> m.getSimpleName().contentEquals(name)
                        && m.getParameters().isEmpty()
                        && returnsDeviceBuffer(m));
    }

    /** Whether an expression names {@code method} as a dim: {@link #missingDim} reports it there. */
    static boolean namedAsDim(PipelineModel model, ExecutableElement method) {
        return model.problems().stream()
                .map(ExprProblem::unknownName)
                .anyMatch(name -> name != null && missingDim(model, name).orElse(null) == method);
    }

    static String signature(ExecutableElement method) {
        return "`" + method.getReturnType() + " " + method.getSimpleName() + "("
                + (method.getParameters().isEmpty() ? "" : "...") + ")`";
    }
}
