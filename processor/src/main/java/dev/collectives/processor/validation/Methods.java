package dev.collectives.processor.validation;

import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;

/** What validators ask of accessor and step methods. */
final class Methods {
    static final String DEVICE_BUFFER = "dev.collectives.runtime.DeviceBuffer";

    private Methods() {
    }

    static boolean returnsDeviceBuffer(ExecutableElement method) {
        return method.getReturnType() instanceof DeclaredType declared
                && declared.asElement() instanceof TypeElement type
                && type.getQualifiedName().contentEquals(DEVICE_BUFFER)
                && declared.getTypeArguments().isEmpty();
    }

    static boolean returnsVoid(ExecutableElement method) {
        return method.getReturnType().getKind() == TypeKind.VOID;
    }

    static String signature(ExecutableElement method) {
        return "`" + method.getReturnType() + " " + method.getSimpleName() + "("
                + (method.getParameters().isEmpty() ? "" : "...") + ")`";
    }
}
