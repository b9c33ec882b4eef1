package dev.collectives.processor.validation;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.HandleType;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.Site;
import dev.collectives.rules.Message;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.TypeVariable;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * R11 ALLOCATOR at compile time: a CUSTOM allocator is a concrete DeviceAllocator class or record the generated code
 * can instantiate ({@code new X()}, or {@code new X<>()} for a generic one, whose type arguments are erased at run
 * time so whatever javac infers makes the same allocator: reachable from the pipeline's package, no checked
 * exceptions), annotated {@code @QualifiedAllocator} with the POSIX file descriptor handle type, and FABRIC too
 * under MTLink SHARP. Sizes and alignment are checked on each allocation at bind.
 */
final class R11AllocatorValidator implements Validator {
    private static final String DEVICE_ALLOCATOR = "dev.collectives.runtime.DeviceAllocator";

    private final Elements elements;
    private final Types types;

    R11AllocatorValidator(ProcessingEnvironment env) {
        this.elements = env.getElementUtils();
        this.types = env.getTypeUtils();
    }

    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        for (BufferDecl b : model.buffers()) {
            TypeMirror custom = b.customAllocator();
            if (b.kind() != BufferDecl.Kind.BUFFER || b.allocator() == null || custom == null) {
                continue;
            }
            Site site = b.site("customAllocator");
            if (b.allocator() != Allocator.CUSTOM) {
                if (custom.getKind() != TypeKind.VOID) {
                    diagnostics.error(Message.R11_CLASS_WITHOUT_CUSTOM, site, b.name(), custom, b.allocator());
                }
                continue;
            }
            if (custom.getKind() == TypeKind.VOID) {
                diagnostics.error(Message.R11_CUSTOM_WITHOUT_CLASS, b.site("allocator"), b.name());
                continue;
            }
            Problem problem = problem(model, custom);
            if (problem != null) {
                diagnostics.error(problem.message(), site, problem.arguments(b.name(), custom));
            }
        }
    }

    /** What is wrong with a custom allocator: a message, and what it says beyond the buffer and the class. */
    private record Problem(Message message, Object... details) {
        Object[] arguments(String buffer, TypeMirror custom) {
            Object[] arguments = new Object[2 + details.length];
            arguments[0] = buffer;
            arguments[1] = custom;
            System.arraycopy(details, 0, arguments, 2, details.length);
            return arguments;
        }
    }

    private Problem problem(PipelineModel model, TypeMirror custom) {
        if (custom.getKind() == TypeKind.ERROR) {
            return new Problem(Message.R11_CLASS_NOT_FOUND);
        }
        Optional<TypeElement> found = Allocators.classOf(custom);
        if (found.isEmpty()
                || found.get().getKind() != ElementKind.CLASS && found.get().getKind() != ElementKind.RECORD
                || found.get().getModifiers().contains(Modifier.ABSTRACT)) {
            return new Problem(Message.R11_NOT_CONCRETE);
        }
        TypeElement allocator = found.get();
        TypeElement deviceAllocator = elements.getTypeElement(DEVICE_ALLOCATOR);
        if (deviceAllocator != null
                && !types.isAssignable(types.erasure(custom), types.erasure(deviceAllocator.asType()))) {
            return new Problem(Message.R11_NOT_DEVICE_ALLOCATOR);
        }
        Problem access = accessProblem(allocator, elements.getPackageOf(model.type()));
        if (access != null) {
            return access;
        }
        Optional<Set<HandleType>> handles = Allocators.handleTypes(elements, allocator);
        if (handles.isEmpty()) {
            return new Problem(Message.R11_NOT_QUALIFIED);
        }
        if (!handles.get().contains(HandleType.POSIX_FILE_DESCRIPTOR)) {
            return new Problem(Message.R11_WITHOUT_POSIX, handles.get());
        }
        if (model.mtlinkSharp() && !handles.get().contains(HandleType.FABRIC)) {
            return new Problem(Message.R11_WITHOUT_FABRIC, handles.get());
        }
        return null;
    }

    /**
     * Why generated code in the pipeline's package cannot call {@code new X()} without a try: X or a class around it
     * is private or out of reach, X is an inner class, or it has no reachable no-argument constructor that throws
     * no checked exception. Null when it can.
     */
    private Problem accessProblem(TypeElement allocator, PackageElement pipelinePackage) {
        boolean samePackage = elements.getPackageOf(allocator).equals(pipelinePackage);
        for (Element e = allocator; e instanceof TypeElement t; e = t.getEnclosingElement()) {
            String which = t == allocator ? "is" : "lies in `" + t.getSimpleName() + "`, which is";
            if (t.getModifiers().contains(Modifier.PRIVATE)) {
                return new Problem(Message.R11_PRIVATE, which);
            }
            if (!samePackage && !t.getModifiers().contains(Modifier.PUBLIC)) {
                return new Problem(Message.R11_NOT_PUBLIC, which, pipelinePackage);
            }
            if (t.getNestingKind() == NestingKind.MEMBER
                    && !t.getModifiers().contains(Modifier.STATIC)
                    && t.getEnclosingElement().getKind() == ElementKind.CLASS) {
                return new Problem(Message.R11_INNER_CLASS);
            }
        }
        for (Element member : allocator.getEnclosedElements()) {
            if (member.getKind() == ElementKind.CONSTRUCTOR
                    && ((ExecutableElement) member).getParameters().isEmpty()
                    && reachable(member, samePackage)) {
                ExecutableElement constructor = (ExecutableElement) member;
                List<String> checked = constructor.getThrownTypes().stream()
                        .filter(thrown -> isChecked(constructor, thrown))
                        .map(this::describe)
                        .toList();
                return checked.isEmpty()
                        ? null
                        : new Problem(Message.R11_CONSTRUCTOR_THROWS, String.join(", ", checked));
            }
        }
        return new Problem(Message.R11_NO_CONSTRUCTOR);
    }

    private static boolean reachable(Element member, boolean samePackage) {
        return member.getModifiers().contains(Modifier.PUBLIC)
                || samePackage && !member.getModifiers().contains(Modifier.PRIVATE);
    }

    /**
     * Whether {@code new X()} (or {@code new X<>()}) must handle {@code thrown}. A type parameter of the constructor
     * itself that may be a RuntimeException is inferred as one (javac infers thrown type variables so); one of the
     * class is inferred as its bound, which is what it throws then.
     */
    private boolean isChecked(ExecutableElement constructor, TypeMirror thrown) {
        TypeMirror runtime =
                elements.getTypeElement(RuntimeException.class.getName()).asType();
        TypeMirror error = elements.getTypeElement(Error.class.getName()).asType();
        if (thrown instanceof TypeVariable variable
                && constructor.getTypeParameters().contains(variable.asElement())
                && types.isSubtype(runtime, variable.getUpperBound())) {
            return false;
        }
        return !types.isSubtype(thrown, runtime) && !types.isSubtype(thrown, error);
    }

    /** "java.io.IOException", or for a type parameter "E (inferred as java.lang.Exception)". */
    private String describe(TypeMirror thrown) {
        return thrown instanceof TypeVariable variable
                ? thrown + " (inferred as " + variable.getUpperBound() + ")"
                : thrown.toString();
    }
}
