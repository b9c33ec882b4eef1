package dev.collectives.processor.writer;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterSpec;
import com.palantir.javapoet.TypeName;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.validation.ValidatedBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;

/** Layout and binding: allocation of the roots, views laid out in them, the constructor, {@code bind}, registration
 * (LOCAL) and windows, and the buffer accessors. */
final class LayoutWriter extends GenerationPart {
    LayoutWriter(Generation generation) {
        super(generation);
    }

    /** One field per accessor; externals are final, given to the constructor. */
    List<FieldSpec> fields() {
        List<FieldSpec> fields = new ArrayList<>();
        for (ValidatedBuffer b : pipeline.buffers()) {
            FieldSpec.Builder f = FieldSpec.builder(DEVICE_BUFFER, name(b), Modifier.PRIVATE);
            if (b.kind() == BufferDecl.Kind.EXTERNAL) {
                f.addModifiers(Modifier.FINAL);
            }
            fields.add(f.build());
        }
        return fields;
    }

    MethodSpec constructor(ShapeWriter shapes) {
        MethodSpec.Builder c = MethodSpec.constructorBuilder()
                .addModifiers(Modifier.PRIVATE)
                .addParameter(COMMUNICATOR, name("comm"))
                .addParameter(STREAM, name("stream"))
                .addStatement("this.$N = $N", name("comm"), name("comm"))
                .addStatement("this.$N = $N", name("stream"), name("stream"));
        shapes.constructorParameters(c);
        for (ValidatedBuffer b : externals()) {
            c.addParameter(DEVICE_BUFFER, name(b));
            c.addStatement(
                    "this.$N = $T.requireNonNull($N, $S)",
                    name(b),
                    java.util.Objects.class,
                    name(b),
                    "external buffer `" + b.name() + "`");
        }
        return c.build();
    }

    MethodSpec bind() {
        MethodSpec.Builder bind = MethodSpec.methodBuilder("bind")
                .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                .returns(className)
                .addJavadoc(
                        "$L\n",
                        Comments.wrapped("Allocates this pipeline's buffers on {@code comm}, checks that "
                                + "every rank binds the same pipeline, and " + generation.bindSummary()
                                + ".\nCollective: "
                                + "every rank of {@code comm} calls it. If it fails, what it made so far is released."))
                .addParameter(ParameterSpec.builder(COMMUNICATOR, name("comm")).build())
                .addParameter(ParameterSpec.builder(STREAM, name("stream")).build());
        List<CodeBlock> arguments =
                new ArrayList<>(List.of(CodeBlock.of("$N", name("comm")), CodeBlock.of("$N", name("stream"))));
        for (ValidatedBuffer b : externals()) {
            bind.addParameter(DEVICE_BUFFER, name(b));
            bind.addJavadoc(
                    "@param $N the {@code @External} buffer `$L` ($L x $L)\n", name(b), b.name(), b.count(), b.type());
            arguments.add(CodeBlock.of("$N", name(b)));
        }
        String pipeline = name("pipeline");
        return bind.addStatement(
                        "$T $N =$Wnew $T($L)", className, pipeline, className, CodeBlock.join(arguments, ",$W"))
                .addStatement("return $L", opened(pipeline))
                .build();
    }

    /** Each root {@code @Buffer}, allocated as the guide's C does it; close frees them. */
    Fragment allocate() {
        CodeBlock.Builder open = CodeBlock.builder();
        List<Fragment.Resource> memory = new ArrayList<>();
        for (ValidatedBuffer b : pipeline.buffers()) {
            if (!(b.origin() instanceof ValidatedBuffer.Allocation allocation)) {
                continue;
            }
            Expr count = b.count();
            String bytes = b.type().size() == 1
                    ? count.toString()
                    : (Expressions.needsParentheses(count, '*', false) ? "(" + count + ")" : count) + " * sizeof("
                            + CNames.elementType(b.type()) + ")";
            switch (allocation.allocator()) {
                case CUSTOM:
                    open.add(Comments.line(simpleName(allocation.customAllocator()) + " allocates " + b.name() + ": "
                            + bytes + " bytes"));
                    break;
                case VMM:
                    open.add(Comments.line("the qualified VMM allocator (" + CNames.driver("MemCreate") + ", "
                            + CNames.driver("MemAddressReserve") + ", " + CNames.driver("MemMap") + ") makes "
                            + b.name() + ": " + bytes + " bytes"));
                    break;
                case LEGACY:
                    open.add(Comments.call(CNames.runtime("Malloc"), List.of("&" + b.name(), bytes)));
                    break;
                default:
                    open.add(Comments.call(CNames.ccl("MemAlloc"), List.of("&" + b.name(), bytes)));
            }
            CodeBlock allocator = allocation.allocator() == Allocator.CUSTOM
                    ? CodeBlock.of(
                            isGeneric(allocation.customAllocator()) ? "new $T<>()" : "new $T()",
                            TypeName.get(allocation.customAllocator()))
                    : CodeBlock.of("$T.$L", Allocator.class, allocation.allocator());
            open.addStatement(
                    "$N = $N.allocate($L,$W$T.$L,$W$L)$Z.named($N, $S)",
                    name(b),
                    name("comm"),
                    allocator,
                    DATA_TYPE,
                    b.type(),
                    generation.value(count, Map.of()),
                    name("PIPELINE"),
                    b.name());
            memory.add(new Fragment.Resource(Fragment.Release.MEMORY, name(b)));
        }
        return new Fragment(open.build(), List.of(), List.of(), memory);
    }

    /** A class literal names a generic class raw: {@code new X<>()} lets javac infer its (erased) arguments. */
    private static boolean isGeneric(TypeMirror type) {
        return type instanceof DeclaredType declared
                && !((TypeElement) declared.asElement()).getTypeParameters().isEmpty();
    }

    static String simpleName(TypeMirror type) {
        String name = type.toString();
        return name.substring(name.lastIndexOf('.') + 1);
    }

    Fragment layOutViews() {
        CodeBlock.Builder open = CodeBlock.builder();
        // a view may lie in another view: lay them out in an order where the outer one comes first
        List<ValidatedBuffer> pending = new ArrayList<>(pipeline.buffers().stream()
                .filter(b -> b.origin() instanceof ValidatedBuffer.Placement)
                .toList());
        Set<String> laidOut = new LinkedHashSet<>();
        pipeline.buffers().stream()
                .filter(b -> !(b.origin() instanceof ValidatedBuffer.Placement))
                .forEach(b -> laidOut.add(b.name()));
        while (!pending.isEmpty()) {
            ValidatedBuffer v = pending.stream()
                    .filter(p -> laidOut.contains(placement(p).of()))
                    .findFirst()
                    .orElseThrow();
            ValidatedBuffer.Placement placement = placement(v);
            open.add("// $L = (uint8_t*)$L + $L\n", v.name(), placement.of(), placement.offsetBytes());
            open.addStatement(
                    "$N = $N.view($L,$W$T.$L,$W$L)",
                    name(v),
                    name(pipeline.buffer(placement.of())),
                    generation.value(placement.offsetBytes(), Map.of()),
                    DATA_TYPE,
                    v.type(),
                    generation.value(v.count(), Map.of()));
            laidOut.add(v.name());
            pending.remove(v);
        }
        return Fragment.of(open.build());
    }

    private static ValidatedBuffer.Placement placement(ValidatedBuffer view) {
        return (ValidatedBuffer.Placement) view.origin();
    }

    /** LOCAL: each registered allocation, once; close deregisters them. */
    Fragment register() {
        if (registration != Registration.LOCAL) {
            return Fragment.NONE;
        }
        CodeBlock.Builder open = CodeBlock.builder();
        List<FieldSpec> fields = new ArrayList<>();
        List<Fragment.Resource> registrations = new ArrayList<>();
        boolean commented = false;
        for (ValidatedBuffer b : pipeline.buffers()) {
            if (b.kind() == BufferDecl.Kind.VIEW || !b.registered()) {
                continue;
            }
            if (!commented) {
                open.add(Comments.line(CNames.ccl("CommRegister") + "(comm, buffer, size, &handle): once per "
                        + "allocation, before the first collective; every step reuses it (R6)"));
                commented = true;
            }
            String field = newName(b.name() + "Registration");
            fields.add(FieldSpec.builder(REGISTRATION_HANDLE, field, Modifier.PRIVATE)
                    .build());
            open.addStatement("$N = $N.register($N)", field, name("comm"), name(b));
            registrations.add(new Fragment.Resource(Fragment.Release.REGISTRATION, field));
        }
        return new Fragment(open.build(), fields, List.of(), registrations);
    }

    /** Each {@code @Window}, registered collectively, with the accessor of its window; close deregisters them. */
    Fragment registerWindows() {
        CodeBlock.Builder open = CodeBlock.builder();
        List<FieldSpec> fields = new ArrayList<>();
        List<MethodSpec> accessors = new ArrayList<>();
        List<Fragment.Resource> windows = new ArrayList<>();
        for (ValidatedBuffer b : pipeline.buffers()) {
            if (!b.window()) {
                continue;
            }
            String field = newName(b.name() + "Window");
            fields.add(FieldSpec.builder(REGISTERED_WINDOW, field, Modifier.PRIVATE)
                    .build());
            open.add(Comments.call(
                    CNames.ccl("CommWindowRegister"),
                    List.of("comm", b.name(), "size", "&win", b.windowSymmetric() ? "NCCL_WIN_COLL_SYMMETRIC" : "0"),
                    "collective, every rank (R12)"));
            open.addStatement("$N = $N.registerWindow($N, $L)", field, name("comm"), name(b), b.windowSymmetric());
            windows.add(new Fragment.Resource(Fragment.Release.WINDOW, field));
            accessors.add(MethodSpec.methodBuilder(methods.newName(b.name() + "Window"))
                    .addModifiers(Modifier.PUBLIC)
                    .returns(REGISTERED_WINDOW)
                    .addJavadoc("The window `$L` is registered as (R10: its helpers may be missing).\n", b.name())
                    .addStatement("return $N", field)
                    .build());
        }
        return new Fragment(open.build(), fields, accessors, windows);
    }

    List<MethodSpec> accessors() {
        List<MethodSpec> accessors = new ArrayList<>();
        for (ValidatedBuffer b : pipeline.buffers()) {
            accessors.add(MethodSpec.methodBuilder(b.name())
                    .addAnnotation(OVERRIDE)
                    .addModifiers(Modifier.PUBLIC)
                    .returns(DEVICE_BUFFER)
                    .addStatement("return $N", name(b))
                    .build());
        }
        return accessors;
    }
}
