package dev.collectives.processor.writer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.lang.model.element.Element;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.PackageElement;
import javax.lang.model.type.TypeMirror;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.NameAllocator;
import com.palantir.javapoet.ParameterSpec;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.OpKind;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.processor.model.StepDecl;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Fingerprint;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.LegacyRegistrationRule;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.PipelineSupport;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Rule;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Window;

/**
 * Writes {@code Collective<Name>} for a validated pipeline model. The generated code follows the C sequence of the MCCL
 * user-buffer-registration guide:
 * allocate, lay out views, agree on the pipeline across ranks (fingerprint), register (LOCAL) or capture each step
 * into a graph (GRAPH), issue the ops, and release in reverse: graphs, registrations and windows, memory.
 */
public final class PipelineWriter {
    private static final ClassName DEVICE_BUFFER = ClassName.get(DeviceBuffer.class);
    private static final ClassName RULE = ClassName.get(Rule.class);
    private static final ClassName SUPPORT = ClassName.get(PipelineSupport.class);
    private static final String PROCESSOR = "dev.collectives.processor.CollectivesProcessor";

    /** The generated class's simple name: "Collective" + the interface's (nested: Outer_Inner). */
    public static String generatedName(PipelineModel model) {
        return "Collective" + model.flatName();
    }

    public JavaFile write(PipelineModel model) {
        return new Generation(model).file();
    }

    /** One side of an op: which accessor, how many elements in, how many elements long. */
    private record Side(String role, BufferDecl buffer, long offset, long count, OpKind.Extent extent) {
        boolean wholeBuffer() {
            return offset == 0 && extent == OpKind.Extent.COUNT;
        }

        /** The element count as Java: 1024L, or 1024L * comm.size(). */
        CodeBlock countCode() {
            return extent == OpKind.Extent.COUNT_TIMES_RANKS ? CodeBlock.of("$LL * comm.size()", count)
                    : CodeBlock.of("$LL", count);
        }
    }

    private static final class Generation {
        private final PipelineModel model;
        private final Registration registration;
        private final ClassName className;
        private final NameAllocator names = new NameAllocator();
        private final NameAllocator methods = new NameAllocator();
        private final TypeSpec.Builder type;
        private final CodeBlock.Builder open = CodeBlock.builder();
        private final Map<Object, CodeBlock> arguments = new LinkedHashMap<>();
        private final List<String> graphs = new ArrayList<>();
        private final List<String> registrations = new ArrayList<>();
        private final List<String> windows = new ArrayList<>();
        private final List<String> roots = new ArrayList<>();
        private final List<MethodSpec> windowAccessors = new ArrayList<>();

        Generation(PipelineModel model) {
            this.model = model;
            this.registration = model.registration();
            this.className = ClassName.get(packageName(model), generatedName(model));
            // method names of the interface are fixed; the generated class's own private method avoids them
            model.steps().forEach(s -> methods.newName(s.name(), s));
            model.buffers().forEach(b -> methods.newName(b.name(), b));
            methods.newName("open", "open");
            // fields and locals: the generated class's own come first, so that they read as in the guide's C
            for (String internal : List.of("comm", "stream", "closed", "PIPELINE", "pipeline")) {
                names.newName(internal, internal);
            }
            model.buffers().forEach(b -> names.newName(b.name(), b));
            this.type = TypeSpec.classBuilder(className)
                    .addOriginatingElement(model.type())
                    .addModifiers(Modifier.FINAL)
                    .addSuperinterface(model.type().asType())
                    .addSuperinterface(Pipeline.class)
                    // member types of the interface are inherited: a nested `Stream` must not capture ours
                    .avoidClashesWithNestedClasses(model.type());
            if (model.type().getModifiers().contains(Modifier.PUBLIC)) {
                type.addModifiers(Modifier.PUBLIC);
            }
        }

        private static String packageName(PipelineModel model) {
            Element e = model.type();
            while (!(e instanceof PackageElement)) {
                e = e.getEnclosingElement();
            }
            return ((PackageElement) e).getQualifiedName().toString();
        }

        JavaFile file() {
            type.addJavadoc("The {@link $T} pipeline ($L registration), generated by the Collectives annotation "
                    + "processor.\n<p>Bind it on every rank with {@link #bind}; close it on every rank when done.\n",
                    model.type().asType(), registration);
            type.addField(FieldSpec.builder(String.class, name("PIPELINE"), Modifier.PRIVATE, Modifier.STATIC,
                    Modifier.FINAL).initializer("$S", model.type().getQualifiedName().toString()).build());
            type.addField(Communicator.class, name("comm"), Modifier.PRIVATE, Modifier.FINAL);
            type.addField(Stream.class, name("stream"), Modifier.PRIVATE, Modifier.FINAL);
            for (BufferDecl b : model.buffers()) {
                FieldSpec.Builder f = FieldSpec.builder(DEVICE_BUFFER, name(b), Modifier.PRIVATE);
                if (b.kind() == BufferDecl.Kind.EXTERNAL) {
                    f.addModifiers(Modifier.FINAL);
                }
                type.addField(f.build());
            }
            allocate();
            layOutViews();
            checkExternals();
            exchangeFingerprint();
            checkRunTimeRules();
            prepareArguments();
            register();
            registerWindows();
            if (registration == Registration.GRAPH) {
                captureSteps();
            }
            type.addField(boolean.class, name("closed"), Modifier.PRIVATE);
            type.addMethod(constructor());
            type.addMethod(bind());
            type.addMethod(MethodSpec.methodBuilder(methods.get("open"))
                    .addModifiers(Modifier.PRIVATE)
                    .addCode(open.build())
                    .build());
            accessors();
            type.addMethods(windowAccessors);
            steps();
            type.addMethod(describe());
            type.addMethod(close());
            return JavaFile.builder(className.packageName(), type.build())
                    .addFileComment("Generated by $L from $L. Do not edit.", PROCESSOR,
                            model.type().getQualifiedName())
                    .indent("    ")
                    .skipJavaLangImports(true)
                    .build();
        }

        private String name(Object tag) {
            return names.get(tag);
        }

        private String name(BufferDecl b) {
            return names.get(b);
        }

        /** A fresh member name, later found again with {@code name(suggestion)}. */
        private String newName(String suggestion) {
            return names.newName(suggestion, suggestion);
        }

        // ---- construction ------------------------------------------------------------------------------------

        private MethodSpec constructor() {
            MethodSpec.Builder c = MethodSpec.constructorBuilder().addModifiers(Modifier.PRIVATE)
                    .addParameter(Communicator.class, name("comm"))
                    .addParameter(Stream.class, name("stream"))
                    .addStatement("this.$N = $N", name("comm"), name("comm"))
                    .addStatement("this.$N = $N", name("stream"), name("stream"));
            for (BufferDecl b : externals()) {
                c.addParameter(DEVICE_BUFFER, name(b));
                c.addStatement("this.$N = $T.requireNonNull($N, $S)", name(b), java.util.Objects.class, name(b),
                        "external buffer `" + b.name() + "`");
            }
            return c.build();
        }

        private List<BufferDecl> externals() {
            return model.buffers().stream().filter(b -> b.kind() == BufferDecl.Kind.EXTERNAL).toList();
        }

        private MethodSpec bind() {
            MethodSpec.Builder bind = MethodSpec.methodBuilder("bind")
                    .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
                    .returns(className)
                    .addJavadoc("Allocates this pipeline's buffers on {@code comm}, checks that every rank binds the same "
                            + "pipeline, and $L.\nCollective: every rank of {@code comm} calls it. If it fails, what "
                            + "it made so far is released.\n", bindSummary())
                    .addParameter(ParameterSpec.builder(Communicator.class, name("comm")).build())
                    .addParameter(ParameterSpec.builder(Stream.class, name("stream")).build());
            List<String> arguments = new ArrayList<>(List.of(name("comm"), name("stream")));
            for (BufferDecl b : externals()) {
                bind.addParameter(DEVICE_BUFFER, name(b));
                bind.addJavadoc("@param $N the {@code @External} buffer `$L` ($L x $L)\n", name(b), b.name(), b.count(),
                        b.type());
                arguments.add(name(b));
            }
            String pipeline = name("pipeline");
            return bind
                    .addStatement("$T $N = new $T($L)", className, pipeline, className, String.join(", ", arguments))
                    .addStatement("return $T.open($N, $N::$N)", SUPPORT, pipeline, pipeline, methods.get("open"))
                    .build();
        }

        private String bindSummary() {
            switch (registration) {
                case GRAPH: return "captures each step into its own graph (graph registration)";
                case LOCAL: return "registers each allocation once (local registration)";
                default: return "registers nothing";
            }
        }

        private void allocate() {
            for (BufferDecl b : model.buffers()) {
                if (b.kind() != BufferDecl.Kind.BUFFER) {
                    continue;
                }
                String bytes = b.count() + (b.type().size() == 1 ? "" : " * sizeof(" + CNames.elementType(b.type()) + ")");
                switch (b.allocator()) {
                    case CUSTOM:
                        open.add("// $L allocates $L: $L bytes\n", simpleName(b.customAllocator()), b.name(), bytes);
                        break;
                    case VMM:
                        open.add("// the qualified VMM allocator (muMemCreate, muMemAddressReserve, muMemMap) makes $L: "
                                + "$L bytes\n", b.name(), bytes);
                        break;
                    case LEGACY:
                        open.add("// musaMalloc(&$L, $L)\n", b.name(), bytes);
                        break;
                    default:
                        open.add("// mcclMemAlloc(&$L, $L)\n", b.name(), bytes);
                }
                CodeBlock allocator = b.allocator() == Allocator.CUSTOM
                        ? CodeBlock.of("new $T()", TypeName.get(b.customAllocator()))
                        : CodeBlock.of("$T.$L", Allocator.class, b.allocator());
                open.addStatement("$N = $N.allocate($L, $T.$L, $LL)", name(b), name("comm"), allocator, DataType.class,
                        b.type(), b.count());
                roots.add(name(b));
            }
        }

        private static String simpleName(TypeMirror type) {
            String name = type.toString();
            return name.substring(name.lastIndexOf('.') + 1);
        }

        private void layOutViews() {
            // a view may lie in another view: lay them out in an order where the outer one comes first
            List<BufferDecl> pending = new ArrayList<>(model.buffers().stream()
                    .filter(b -> b.kind() == BufferDecl.Kind.VIEW).toList());
            Set<String> laidOut = new LinkedHashSet<>();
            model.buffers().stream().filter(b -> b.kind() != BufferDecl.Kind.VIEW).forEach(b -> laidOut.add(b.name()));
            while (!pending.isEmpty()) {
                BufferDecl v = pending.stream().filter(p -> laidOut.contains(p.of())).findFirst().orElseThrow();
                BufferDecl of = model.buffer(v.of()).orElseThrow();
                open.add("// $L = (uint8_t*)$L + $L\n", v.name(), v.of(), v.offsetBytes());
                open.addStatement("$N = $N.view($LL, $T.$L, $LL)", name(v), name(of), v.offsetBytes(),
                        DataType.class, v.type(), v.count());
                laidOut.add(v.name());
                pending.remove(v);
            }
        }

        private void checkExternals() {
            for (BufferDecl b : externals()) {
                open.addStatement(support("requireExternal", "$N, $S, $T.$L, $LL", name(b), b.name(), DataType.class,
                        b.type(), b.count()));
            }
        }

        // ---- agreement across ranks ----------------------------------------------------------------------------

        private void exchangeFingerprint() {
            CodeBlock.Builder f = CodeBlock.builder()
                    .add("// every rank binds the same pipeline (R14), registered alike (R1), at the same offsets (R2)\n")
                    .add("$T.builder($N)\n", Fingerprint.class, name("PIPELINE")).indent().indent()
                    .add(".add($S, $S)\n", "registration", registration.name());
            if (!model.acceleration().isEmpty()) {
                f.add(".add($S, $S)\n", "acceleration", model.acceleration().toString());
            }
            if (model.ranks() > 0) {
                f.add(".add($S, $L)\n", "ranks", model.ranks());
            }
            for (BufferDecl b : model.buffers()) {
                String key = b.kind().annotation().substring(1).toLowerCase(java.util.Locale.ROOT) + " " + b.name();
                f.add(".add($S, $S)\n", key, shape(b));
                if (b.kind() == BufferDecl.Kind.VIEW) {
                    f.add(".add($T.R2_OFFSET, $S, $LL)\n", RULE, key + " offset bytes", b.offsetBytes());
                } else if (b.kind() == BufferDecl.Kind.EXTERNAL) {
                    f.add(".add($T.R2_OFFSET, $S, $N.headOffset())\n", RULE, key + " head offset", name(b));
                }
                if (b.kind() != BufferDecl.Kind.VIEW) {
                    f.add(".add($T.R1_MIXED, $S, $L)\n", RULE, key + " registered", model.isRegistered(b));
                }
                if (b.isWindow()) {
                    f.add(".add($T.R12_WINDOW, $S, $S)\n", RULE, key + " window",
                            b.windowSymmetric() ? "symmetric" : "asymmetric");
                }
            }
            for (StepDecl s : model.steps()) {
                f.add(".add($S, $S)\n", "step " + s.name(), s.ops().size() + (s.ops().size() == 1 ? " op" : " ops") + (s.grouped() ? ", grouped" : ""));
                for (OpDecl o : s.ops()) {
                    f.add(".add($S, $S)\n", "step " + s.name() + " op " + o.index(), opShape(o));
                }
            }
            f.add(".build()\n").add(".exchange($N, $N);\n", name("comm"), name("stream")).unindent().unindent();
            open.add(f.build());
        }

        private String shape(BufferDecl b) {
            switch (b.kind()) {
                case BUFFER:
                    return (b.allocator() == Allocator.CUSTOM ? b.customAllocator().toString() : b.allocator().name())
                            + " " + b.type() + " x " + b.count();
                case VIEW:
                    return b.type() + " x " + b.count() + " in " + b.of();
                default:
                    return b.type() + " x " + b.count();
            }
        }

        private String opShape(OpDecl o) {
            StringBuilder s = new StringBuilder(o.kind().method());
            if (o.kind().hasSend()) {
                s.append(" send ").append(o.send()).append('+').append(o.sendOffset());
            }
            if (o.kind().hasRecv()) {
                s.append(" recv ").append(o.recv()).append('+').append(o.recvOffset());
            }
            s.append(" count ").append(o.count()).append(' ').append(typeOf(o));
            if (o.kind().reduces()) {
                s.append(' ').append(o.op());
            }
            if (o.kind().hasRoot()) {
                s.append(" root ").append(o.root());
            }
            if (o.kind().isPointToPoint()) {
                s.append(" peer ").append(o.peer() == Peer.ABSOLUTE ? "rank " + o.peerRank() : o.peer().name());
            }
            return s.toString();
        }

        private DataType typeOf(OpDecl o) {
            return model.buffer(o.kind().hasSend() ? o.send() : o.recv()).orElseThrow().type();
        }

        // ---- run-time rules ------------------------------------------------------------------------------------

        /** {@code PipelineSupport.method(comm, PIPELINE, args...)}: a call every generated class makes alike. */
        private CodeBlock support(String method, String format, Object... args) {
            CodeBlock more = CodeBlock.of(format, args);
            return CodeBlock.of("$T.$L($N, $N$L$L)", SUPPORT, method, name("comm"), name("PIPELINE"),
                    more.isEmpty() ? "" : ", ", more);
        }

        private void checkRunTimeRules() {
            if (model.ranks() > 0) {
                open.addStatement(support("requireRanks", "$L", model.ranks()));
            } else {
                checkRanksInRange();
            }
            if (model.ibSharp() && model.registers()) {
                open.addStatement(support("requireOneRankPerNode", ""));
            }
            if (!model.registers()) {
                return;
            }
            for (BufferDecl b : model.buffers()) {
                if (!model.isRegistered(b)) {
                    continue;
                }
                if (b.kind() == BufferDecl.Kind.EXTERNAL && model.mtlinkSharp()) {
                    open.addStatement(support("requireMtlinkSharpMemory", "$N, $S", name(b), b.name()));
                }
                checkLegacy(b);
            }
        }

        /**
         * R9 for registered memory that may be legacy: buffers declared LEGACY (the compile-time opt-in, or IB SHARP
         * serving them, was checked) and externals, whose allocator only bind knows.
         */
        private void checkLegacy(BufferDecl b) {
            if (b.kind() == BufferDecl.Kind.BUFFER && b.allocator() == Allocator.LEGACY) {
                open.addStatement("$T.check($N, $N, $N + $S)", LegacyRegistrationRule.class, name("comm"), name(b),
                        name("PIPELINE"), ": `" + b.name() + "`");
            } else if (b.kind() == BufferDecl.Kind.EXTERNAL) {
                boolean allowed = model.allowLegacyRegistration() || model.legacyServedByIbSharp(b);
                open.addStatement("$T.$L($N, $N, $N + $S)", LegacyRegistrationRule.class,
                        allowed ? "check" : "checkWithoutOptIn", name("comm"), name(b), name("PIPELINE"),
                        ": external buffer `" + b.name() + "`");
            }
        }

        /** Roots and absolute peers must name ranks of the communicator, which only bind knows when ranks = 0. */
        private void checkRanksInRange() {
            for (StepDecl s : model.steps()) {
                for (OpDecl o : s.ops()) {
                    int rank;
                    if (o.kind().hasRoot()) {
                        rank = o.root();
                    } else if (o.kind().isPointToPoint() && o.peer() == Peer.ABSOLUTE) {
                        rank = o.peerRank();
                    } else {
                        continue;
                    }
                    open.addStatement(support("requireRank", "$L, $S", rank, (o.kind().hasRoot() ? "root" : "peer")
                            + " of " + o.kind().annotation() + " #" + o.index() + " in " + s.name() + "()"));
                }
            }
        }

        // ---- op arguments --------------------------------------------------------------------------------------

        private void prepareArguments() {
            boolean commented = false;
            for (StepDecl s : model.steps()) {
                for (OpDecl o : s.ops()) {
                    for (Side side : sides(o)) {
                        CodeBlock argument;
                        if (side.wholeBuffer()) {
                            argument = CodeBlock.of("$N", name(side.buffer()));
                        } else {
                            if (!commented) {
                                open.add("// the ops' arguments: buffer + offset, in elements of the buffer's type\n");
                                commented = true;
                            }
                            String field = newName(s.name() + "Op" + o.index() + side.role());
                            type.addField(DEVICE_BUFFER, field, Modifier.PRIVATE);
                            open.addStatement("$N = $L", field, support("slice", "$N, $S, $LL, $L",
                                    name(side.buffer()), side.buffer().name(), side.offset(), side.countCode()));
                            argument = CodeBlock.of("$N", field);
                        }
                        arguments.put(key(o, side), argument);
                    }
                }
            }
        }

        private List<Side> sides(OpDecl o) {
            List<Side> sides = new ArrayList<>(2);
            if (o.kind().hasSend()) {
                sides.add(new Side("Send", model.buffer(o.send()).orElseThrow(), o.sendOffset(), o.count(),
                        o.kind().sendExtent()));
            }
            if (o.kind().hasRecv()) {
                sides.add(new Side("Recv", model.buffer(o.recv()).orElseThrow(), o.recvOffset(), o.count(),
                        o.kind().recvExtent()));
            }
            return sides;
        }

        private static List<Object> key(OpDecl o, Side side) {
            return List.of(o, side.role());
        }

        private CodeBlock argument(OpDecl o, Side side) {
            return arguments.get(key(o, side));
        }

        // ---- registration --------------------------------------------------------------------------------------

        private void register() {
            if (registration != Registration.LOCAL) {
                return;
            }
            boolean commented = false;
            for (BufferDecl b : model.buffers()) {
                if (b.kind() == BufferDecl.Kind.VIEW || !model.isRegistered(b)) {
                    continue;
                }
                if (!commented) {
                    open.add("// mcclCommRegister(comm, buffer, size, &handle): once per allocation, before the first "
                            + "collective; every step reuses it (R6)\n");
                    commented = true;
                }
                String field = newName(b.name() + "Registration");
                type.addField(RegistrationHandle.class, field, Modifier.PRIVATE);
                open.addStatement("$N = $N.register($N)", field, name("comm"), name(b));
                registrations.add(field);
            }
        }

        private void registerWindows() {
            for (BufferDecl b : model.buffers()) {
                if (!b.isWindow()) {
                    continue;
                }
                String field = newName(b.name() + "Window");
                type.addField(Window.class, field, Modifier.PRIVATE);
                open.add("// mcclCommWindowRegister(comm, $L, size, &win, $L): collective, every rank (R12)\n", b.name(),
                        b.windowSymmetric() ? "MCCL_WIN_COLL_SYMMETRIC" : "0");
                open.addStatement("$N = $N.registerWindow($N, $L)", field, name("comm"), name(b), b.windowSymmetric());
                windows.add(field);
                windowAccessors.add(MethodSpec.methodBuilder(methods.newName(b.name() + "Window"))
                        .addModifiers(Modifier.PUBLIC).returns(Window.class)
                        .addJavadoc("The window `$L` is registered as (R10: its helpers may be missing).\n", b.name())
                        .addStatement("return $N", field).build());
            }
        }

        private void captureSteps() {
            for (StepDecl s : model.steps()) {
                String graph = newName(s.name() + "Graph");
                String exec = newName(s.name() + "Exec");
                type.addField(Graph.class, graph, Modifier.PRIVATE);
                type.addField(GraphExec.class, exec, Modifier.PRIVATE);
                open.add("// $L(): musaStreamBeginCapture(stream, musaStreamCaptureModeThreadLocal), the ops, "
                                + "musaStreamEndCapture(stream, &graph) (R4)\n", s.name())
                        .add("$N = $T.capture($N, () -> {\n$>", graph, SUPPORT, name("stream"))
                        .add(issue(s))
                        .add("$<});\n")
                        .add("// musaGraphInstantiate(&instance, graph, NULL, NULL, 0)\n")
                        .addStatement("$N = $N.instantiate()", exec, graph);
                graphs.add(exec);
                graphs.add(graph);
            }
        }

        // ---- members -------------------------------------------------------------------------------------------

        private void accessors() {
            for (BufferDecl b : model.buffers()) {
                type.addMethod(MethodSpec.methodBuilder(b.name())
                        .addAnnotation(Override.class)
                        .addModifiers(Modifier.PUBLIC)
                        .returns(DEVICE_BUFFER)
                        .addStatement("return $N", name(b))
                        .build());
            }
        }

        private void steps() {
            for (StepDecl s : model.steps()) {
                MethodSpec.Builder m = MethodSpec.methodBuilder(s.name())
                        .addAnnotation(Override.class)
                        .addModifiers(Modifier.PUBLIC)
                        .addStatement(support(registration == Registration.GRAPH ? "requireOpenForReplay" : "requireOpen",
                                "$N, $S", name("closed"), s.name()));
                if (registration == Registration.GRAPH) {
                    m.addComment("musaGraphLaunch(instance, stream)")
                            .addStatement("$N.launch($N)", name(s.name() + "Exec"), name("stream"));
                } else {
                    m.addCode(issue(s));
                }
                type.addMethod(m.build());
            }
        }

        /** The step's ops in declaration order, grouped when asked or when point-to-point. */
        private CodeBlock issue(StepDecl s) {
            CodeBlock.Builder code = CodeBlock.builder();
            if (s.grouped()) {
                code.add("// mcclGroupStart()\n").addStatement("$N.groupStart()", name("comm"));
            }
            for (OpDecl o : s.ops()) {
                code.add(cComment(o)).addStatement(call(o));
            }
            if (s.grouped()) {
                code.add("// mcclGroupEnd()\n").addStatement("$N.groupEnd()", name("comm"));
            }
            return code.build();
        }

        private CodeBlock cComment(OpDecl o) {
            DataType t = typeOf(o);
            List<String> args = new ArrayList<>();
            for (Side side : sides(o)) {
                args.add(CNames.pointer(side.buffer().name(), side.buffer().type(), side.offset()));
            }
            args.add(Long.toString(o.count()));
            args.add(CNames.dataType(t));
            if (o.kind().reduces()) {
                args.add(CNames.reduceOp(o.op()));
            }
            if (o.kind().hasRoot()) {
                args.add(Integer.toString(o.root()));
            }
            if (o.kind().isPointToPoint()) {
                args.add(CNames.peer(o.peer(), o.peerRank()));
            }
            args.add("comm");
            args.add("stream");
            return CodeBlock.of("// $L($L)\n", o.kind().cName(), String.join(", ", args));
        }

        private CodeBlock call(OpDecl o) {
            List<CodeBlock> args = new ArrayList<>();
            for (Side side : sides(o)) {
                args.add(argument(o, side));
            }
            args.add(CodeBlock.of("$LL", o.count()));
            args.add(CodeBlock.of("$T.$L", DataType.class, typeOf(o)));
            if (o.kind().reduces()) {
                args.add(CodeBlock.of("$T.$L", ReduceOp.class, o.op()));
            }
            if (o.kind().hasRoot()) {
                args.add(CodeBlock.of("$L", o.root()));
            }
            if (o.kind().isPointToPoint()) {
                args.add(CodeBlock.of("$T.$L.resolve($N.rank(), $N.size(), $L)", Peer.class, o.peer(), name("comm"),
                        name("comm"), o.peerRank()));
            }
            args.add(CodeBlock.of("$N", name("stream")));
            return CodeBlock.of("$N.$L($L)", name("comm"), o.kind().method(), CodeBlock.join(args, ", "));
        }

        private MethodSpec describe() {
            List<CodeBlock> rows = new ArrayList<>();
            for (StepDecl s : model.steps()) {
                for (OpDecl o : s.ops()) {
                    rows.add(CodeBlock.of("{$S, $S, $S, $S, $S, $L}", s.name() + "()",
                            o.kind().method() + (s.grouped() ? " (grouped)" : ""), describeBuffers(o),
                            describeOffsets(o), describeCount(o), path(o)));
                }
            }
            CodeBlock.Builder code = CodeBlock.builder()
                    .add("return $T.describe($N, $N + $S, new String[][] {$>$>", SUPPORT, name("comm"),
                            name("PIPELINE"), " (" + registration + " registration)")
                    .add(rows.isEmpty() ? "" : "\n")
                    .add(CodeBlock.join(rows, ",\n"))
                    .add("}");
            for (BufferDecl b : model.buffers()) {
                if (b.isWindow()) {
                    code.add(",\n$T.windowHelpers($S, $L, $N)", SUPPORT, b.name(), b.windowSymmetric(),
                            name(b.name() + "Window"));
                }
            }
            code.add(");\n$<$<");
            return MethodSpec.methodBuilder("describe")
                    .addAnnotation(Override.class)
                    .addModifiers(Modifier.PUBLIC)
                    .returns(String.class)
                    .addCode(code.build())
                    .build();
        }

        private String describeBuffers(OpDecl o) {
            String peer = o.kind().isPointToPoint()
                    ? "peer " + (o.peer() == Peer.ABSOLUTE ? "rank " + o.peerRank() : o.peer().name().toLowerCase(java.util.Locale.ROOT))
                    : "";
            switch (o.kind()) {
                case SEND: return o.send() + " -> " + peer;
                case RECV: return peer + " -> " + o.recv();
                default: return o.send() + " -> " + o.recv() + (o.kind().hasRoot() ? " (root " + o.root() + ")" : "");
            }
        }

        private String describeOffsets(OpDecl o) {
            List<String> offsets = new ArrayList<>();
            for (Side side : sides(o)) {
                offsets.add(Long.toString(side.offset()));
            }
            return String.join(" -> ", offsets);
        }

        private String describeCount(OpDecl o) {
            return o.count() + " x " + typeOf(o) + (o.kind().reduces() ? " " + o.op() : "");
        }

        /** The registration path as Java: a literal when fixed at compile time, else a call to path(...). */
        private CodeBlock path(OpDecl o) {
            if (!model.registers()) {
                return CodeBlock.of("$S", "none: Registration.NONE, the library copies through its own buffers");
            }
            for (Side side : sides(o)) {
                if (!model.isRegistered(side.buffer())) {
                    return CodeBlock.of("$S", "none: `" + side.buffer().name() + "` is declared registered = false");
                }
            }
            boolean mtls = model.mtlinkSharp() && o.kind().sharpServed();
            boolean ibs = model.ibSharp() && o.kind().sharpServed();
            String how = registration == Registration.GRAPH ? "registered when the step's graph was captured"
                    : "registered once at bind (mcclCommRegister)";
            return CodeBlock.of("$T.registrationPath($N, $L, $L, $S)", SUPPORT, name("comm"), mtls, ibs, how);
        }

        private MethodSpec close() {
            MethodSpec.Builder c = MethodSpec.methodBuilder("close")
                    .addAnnotation(Override.class)
                    .addModifiers(Modifier.PUBLIC)
                    .addJavadoc("Releases graphs first (R5), then registrations and windows (R6, R12), then memory. "
                            + "Idempotent.\n")
                    .beginControlFlow("if ($N)", name("closed"))
                    .addStatement("return")
                    .endControlFlow()
                    .addStatement("$N = true", name("closed"));
            Map<String, List<String>> groups = new LinkedHashMap<>();
            groups.put("musaGraphExecDestroy(instance); musaGraphDestroy(graph): graphs before their buffers (R5)",
                    graphs);
            groups.put("mcclCommDeregister(comm, handle) (R6)", registrations);
            groups.put("mcclCommWindowDeregister(comm, win): collective (R12)", windows);
            groups.put("mcclMemFree(buffer)", roots);
            groups.values().removeIf(List::isEmpty);
            if (groups.isEmpty()) {
                return c.build();
            }
            List<CodeBlock> released = new ArrayList<>();
            groups.forEach((comment, resources) -> released.add(CodeBlock.of("// $L\n$L", comment,
                    String.join(", ", resources))));
            return c.addCode("$T.closeInOrder(\n$>$>$L);\n$<$<", SUPPORT, CodeBlock.join(released, ",\n"))
                    .build();
        }
    }
}
