package dev.collectives.processor.writer;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.NameAllocator;
import com.palantir.javapoet.TypeName;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.OpSide;
import dev.collectives.processor.validation.StepPlan;
import dev.collectives.processor.validation.ValidatedOp;
import dev.collectives.processor.validation.ValidatedStep;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import javax.lang.model.element.Modifier;

/** Capture and steps: each call's arguments (buffer + offset), each step captured into a graph (GRAPH), and the
 * step methods, which launch the graph or issue the calls of the step's plan: the ops in declaration order, fused
 * where their ranges lie end to end, grouped where they are independent. */
final class StepWriter extends GenerationPart {
    private static final ClassName REDUCE_OP = ClassName.get(ReduceOp.class);
    private static final ClassName GRAPH_CACHE_OVERFLOW = ClassName.get(GraphCacheOverflow.class);
    private final Map<Object, CodeBlock> arguments = new LinkedHashMap<>();
    private final ShapeWriter shapes;
    /** The names of each step with parameters, by step. */
    private final Map<String, StepNames> stepNames = new LinkedHashMap<>();
    /** The field of the pipeline's {@code CallCheck}, or null when no step has parameters. */
    private final String calls;

    StepWriter(Generation generation, ShapeWriter shapes) {
        super(generation);
        this.shapes = shapes;
        // named before the steps' parameters, which are renamed where they would hide it
        this.calls = pipeline.steps().stream().anyMatch(ValidatedStep::hasParameters) ? newName("calls") : null;
        pipeline.steps().stream()
                .filter(ValidatedStep::hasParameters)
                .forEach(
                        s -> stepNames.put(s.name(), new StepNames(generation, s, registration == Registration.GRAPH)));
    }

    /** The pipeline's {@code CallCheck}, made in open and closed with the memory, if a step has parameters. */
    Fragment callChecks() {
        if (calls == null) {
            return Fragment.NONE;
        }
        CodeBlock open = CodeBlock.builder()
                .add("// every rank calls a step with the same arguments (R14): checked at each call on sim, and\n"
                        + "// where COLLECTIVES_CHECK lists calls, through buffers made at the first checked call\n")
                .addStatement(
                        "$N = new $T($N, $N, $N)", calls, CALL_CHECK, name("comm"), name("stream"), name("PIPELINE"))
                .build();
        return new Fragment(
                open,
                List.of(FieldSpec.builder(CALL_CHECK, calls, Modifier.PRIVATE).build()),
                List.of(),
                List.of(new Fragment.Resource(Fragment.Release.MEMORY, calls)));
    }

    /**
     * Where a fusion holds only for some values of the dims, bind checks them once, before any call: every rank
     * bound the same dims (they are in the fingerprint), so every rank decides alike.
     */
    Fragment planAtBind() {
        CodeBlock.Builder open = CodeBlock.builder();
        List<FieldSpec> fields = new ArrayList<>();
        for (ValidatedStep s : pipeline.steps()) {
            StepPlan plan = s.plan();
            if (!plan.decidedAtBind()) {
                continue;
            }
            String field = newName(s.name() + "Fused");
            fields.add(FieldSpec.builder(boolean.class, field, Modifier.PRIVATE).build());
            List<CodeBlock> tests = new ArrayList<>();
            for (StepPlan.BindTest test : plan.bindTests()) {
                List<CodeBlock> o = test.operands().stream()
                        .map(e -> Expressions.plain(e, n -> generation.name(n, Map.of())))
                        .toList();
                tests.add(
                        test.kind() == StepPlan.BindTest.Kind.EQUAL
                                ? CodeBlock.of("$L == $L", o.get(0), o.get(1))
                                : CodeBlock.of(
                                        "($L == $L ||$W$L <= $L ||$W$L <= $L)",
                                        o.get(0),
                                        o.get(2),
                                        o.get(1),
                                        o.get(2),
                                        o.get(3),
                                        o.get(0)));
            }
            open.add(Comments.line(s.name() + "(): its plan fuses more where the dims bound put the ranges of "
                            + "consecutive ops end to end, in place or apart"))
                    .addStatement("$N = $L", field, CodeBlock.join(tests, " &&$W"));
        }
        return new Fragment(open.build(), fields, List.of(), List.of());
    }

    /** The slices of buffers that calls with offsets known at compile time take, made once at bind. */
    Fragment prepareArguments() {
        CodeBlock.Builder open = CodeBlock.builder();
        List<FieldSpec> fields = new ArrayList<>();
        boolean commented = false;
        for (ValidatedStep s : pipeline.steps()) {
            // slices only for the plan that always holds: the calls of a plan bind chooses by its dims lie inside
            // their buffers only where bind takes that plan, so they take the element-offset overloads
            for (ValidatedOp o : s.plan().proven().calls()) {
                if (!o.fixed()) {
                    continue; // offsets from expressions go to the element-offset overloads, no slices
                }
                for (ValidatedOp.Side side : o.sides()) {
                    CodeBlock argument;
                    long offset = side.knownOffset();
                    if (offset == 0 && o.extent(side.role()) == OpKind.Extent.COUNT) {
                        argument = CodeBlock.of("$N", name(side));
                    } else {
                        if (!commented) {
                            open.add("// the ops' arguments: buffer + offset, in elements of the buffer's type\n");
                            commented = true;
                        }
                        String ops = o.isFused()
                                ? "Ops" + o.index() + "To" + o.last().index()
                                : "Op" + o.index();
                        String field = newName(s.name() + ops + (side.role() == OpSide.Role.SEND ? "Send" : "Recv"));
                        fields.add(FieldSpec.builder(DEVICE_BUFFER, field, Modifier.PRIVATE)
                                .build());
                        open.addStatement(
                                "$N = $L",
                                field,
                                support(
                                        BYTE_RANGES,
                                        "slice",
                                        "$N, $S, $S, $LL, $L",
                                        name(side),
                                        side.buffer(),
                                        o.label(side),
                                        offset,
                                        elementsCode(o, side)));
                        argument = CodeBlock.of("$N", field);
                    }
                    arguments.put(key(o, side), argument);
                }
            }
        }
        return new Fragment(open.build(), fields, List.of(), List.of());
    }

    static List<Object> key(ValidatedOp o, ValidatedOp.Side side) {
        return List.of(o, side.role());
    }

    CodeBlock argument(ValidatedOp o, ValidatedOp.Side side) {
        return arguments.get(key(o, side));
    }

    /** GRAPH: each step captured into its graph, or into a cache of graphs where it has parameters. */
    Fragment captureSteps() {
        List<Fragment> captures = new ArrayList<>();
        for (ValidatedStep s : pipeline.steps()) {
            captures.add(stepNames.containsKey(s.name()) ? cache(s, stepNames.get(s.name())) : capture(s));
        }
        return Fragment.join(captures);
    }

    /**
     * A step without parameters: its one graph (a cache of one, of no arguments), captured at bind where the peers
     * were connected at init, else on its second call, the first running the ops eagerly.
     */
    private Fragment capture(ValidatedStep s) {
        String graph = newName(s.name() + "Graph");
        String args = generation.names.clone().newName("args", "args");
        CodeBlock open = CodeBlock.builder()
                .add(Comments.line(s.name() + "(): " + CNames.runtime("StreamBeginCapture")
                        + "(stream, cudaStreamCaptureModeThreadLocal),\nthe ops, "
                        + CNames.runtime("StreamEndCapture") + "(stream, &graph), "
                        + CNames.runtime("GraphInstantiate") + " (R4): now where the peers were connected at init,"
                        + "\nelse at the second call, the first running the ops eagerly"))
                .add(
                        "$N = new $T($N, $N, $N, $S, 1,$W$T.$L,$W$N -> {\n$>",
                        graph,
                        GRAPH_CACHE,
                        name("comm"),
                        name("stream"),
                        name("PIPELINE"),
                        s.name(),
                        GRAPH_CACHE_OVERFLOW,
                        GraphCacheOverflow.WARN,
                        args)
                .add(issue(s, Map.of()))
                .add("$<});\n")
                .addStatement("$N.capture()", graph)
                .build();
        return new Fragment(
                open,
                List.of(FieldSpec.builder(GRAPH_CACHE, graph, Modifier.PRIVATE).build()),
                List.of(),
                List.of(new Fragment.Resource(Fragment.Release.GRAPH, graph)));
    }

    /**
     * A GRAPH step with parameters: a {@link GraphCache} whose body issues the ops for one argument tuple, and the
     * {@code @Capture} tuples captured now, each checked as a call with it would be.
     */
    private Fragment cache(ValidatedStep s, StepNames names) {
        String cache = names.cache;
        CodeBlock.Builder open = CodeBlock.builder()
                .add(Comments.line(s.name()
                        + "(...): one graph per argument tuple, captured on its first call (R4; the second where the"
                        + " peers connect lazily, the first running eagerly), at most "
                        + pipeline.graphCache() + " kept; the least recently used is destroyed first (R5)"))
                .add(
                        "$N = new $T($N, $N, $N, $S, $L,$W$T.$L,$W$N -> {\n$>",
                        cache,
                        GRAPH_CACHE,
                        name("comm"),
                        name("stream"),
                        name("PIPELINE"),
                        s.name(),
                        pipeline.graphCache(),
                        GRAPH_CACHE_OVERFLOW,
                        pipeline.graphCacheOverflow(),
                        names.args);
        for (int i = 0; i < names.parameters.size(); i++) {
            open.addStatement("long $N = $N[$L]", names.parameters.get(i), names.args, i);
        }
        open.add(issue(s, names.asLongs())).add("$<});\n");
        List<List<Long>> tuples = s.captured();
        if (!tuples.isEmpty()) {
            open.add("// @Capture: $L tuple(s) captured now\n", tuples.size());
        }
        for (List<Long> tuple : tuples) {
            List<CodeBlock> typed = new ArrayList<>();
            for (int i = 0; i < tuple.size(); i++) {
                typed.add(CodeBlock.of(names.isInt(i) ? "$L" : "$LL", tuple.get(i)));
            }
            open.addStatement("$N($L)", names.check, CodeBlock.join(typed, ", "));
            open.addStatement(
                    "$N.capture($L)",
                    cache,
                    tuple.stream().map(v -> CodeBlock.of("$LL", v)).collect(CodeBlock.joining(", ")));
        }
        return new Fragment(
                open.build(),
                List.of(FieldSpec.builder(GRAPH_CACHE, cache, Modifier.PRIVATE).build()),
                List.of(),
                List.of(new Fragment.Resource(Fragment.Release.GRAPH, cache)));
    }

    /** The fields of the graph caches, one per GRAPH step with parameters, in step order. */
    List<String> graphCaches() {
        return stepNames.values().stream()
                .map(names -> names.cache)
                .filter(Objects::nonNull)
                .toList();
    }

    /** Each step's method; for a step with parameters, its check method and, GRAPH, its cache's statistics. */
    List<MethodSpec> steps() {
        List<MethodSpec> members = new ArrayList<>();
        for (ValidatedStep s : pipeline.steps()) {
            MethodSpec.Builder m =
                    MethodSpec.methodBuilder(s.name()).addAnnotation(OVERRIDE).addModifiers(Modifier.PUBLIC);
            StepNames names = stepNames.get(s.name());
            if (names != null) {
                for (int i = 0; i < names.parameters.size(); i++) {
                    m.addParameter(TypeName.get(s.parameters().get(i).type()), names.parameters.get(i));
                }
            }
            String requireOpen = registration == Registration.GRAPH ? "requireOpenForReplay" : "requireOpen";
            m.addStatement(support(LIFECYCLE, requireOpen, "$N, $S", name("closed"), s.name()));
            if (names != null) {
                String arguments = String.join(", ", names.parameters);
                m.addStatement("$N($L)", names.check, arguments)
                        .addComment("every rank calls the step with the same arguments (R14)")
                        .addStatement(
                                "$N.agree($S, $S, $L)",
                                calls,
                                s.name(),
                                s.ops().stream().map(o -> o.kind().annotation()).collect(Collectors.joining(", ")),
                                arguments);
            }
            if (registration == Registration.GRAPH && names != null) {
                m.addComment(
                                "$L(the graph of these arguments, stream), captured first if new",
                                CNames.runtime("GraphLaunch"))
                        .addStatement("$N.launch($L)", names.cache, String.join(", ", names.parameters));
            } else if (registration == Registration.GRAPH) {
                m.addComment("$L(instance, stream), captured first if new", CNames.runtime("GraphLaunch"))
                        .addStatement("$N.launch()", name(s.name() + "Graph"));
            } else {
                m.addCode(issue(s, names == null ? Map.of() : names.asArguments()));
            }
            m.addStatement("$T.stepDone($N, $N)", LIFECYCLE, name("comm"), name("stream"));
            members.add(m.build());
            if (names != null) {
                members.add(shapes.checkMethod(s, names.check, names.parameters, names.asArguments(), names.overflow));
                if (names.cache != null) {
                    members.add(MethodSpec.methodBuilder(methods.newName(s.name() + "Graphs"))
                            .addModifiers(Modifier.PUBLIC)
                            .returns(GRAPH_CACHE_STATS)
                            .addJavadoc(
                                    "Captures, hits and evictions of the graphs of {@code $L}.\n", s.name() + "(...)")
                            .addStatement("return $N.stats()", names.cache)
                            .build());
                }
            }
        }
        return members;
    }

    /**
     * The names a step with parameters uses in the generated class: its parameters (renamed where they would hide
     * a field), the check method, the cache, and the locals of the graph body and of the check.
     */
    private static final class StepNames {
        final List<String> parameters = new ArrayList<>();
        private final List<String> originals = new ArrayList<>();
        private final List<Boolean> ints = new ArrayList<>();
        final String check;
        final String args;
        final String overflow;
        /** The field of its graph cache (GRAPH), else null. */
        final String cache;

        StepNames(Generation generation, ValidatedStep s, boolean cached) {
            NameAllocator local = generation.names.clone();
            for (ValidatedStep.Parameter p : s.parameters()) {
                originals.add(p.name());
                parameters.add(local.newName(p.name(), p));
                ints.add(p.isInt());
            }
            this.args = local.newName("args", "args");
            this.overflow = local.newName("overflow", "overflow");
            this.check = generation.methods.newName(
                    "check" + Character.toUpperCase(s.name().charAt(0))
                            + s.name().substring(1),
                    s.name() + "check");
            this.cache = cached ? generation.newName(s.name() + "Graphs") : null;
        }

        boolean isInt(int i) {
            return ints.get(i);
        }

        /** Parameter name → Java of type long, in the step method: int parameters widened. */
        Map<String, CodeBlock> asArguments() {
            Map<String, CodeBlock> values = new LinkedHashMap<>();
            for (int i = 0; i < parameters.size(); i++) {
                values.put(original(i), CodeBlock.of(isInt(i) ? "(long) $N" : "$N", parameters.get(i)));
            }
            return values;
        }

        /** Parameter name → the long local of the graph body. */
        Map<String, CodeBlock> asLongs() {
            Map<String, CodeBlock> values = new LinkedHashMap<>();
            for (int i = 0; i < parameters.size(); i++) {
                values.put(original(i), CodeBlock.of("$N", parameters.get(i)));
            }
            return values;
        }

        private String original(int i) {
            return originals.get(i);
        }
    }

    /** The calls of the step's plan, or of the plan bind took where bind decides it. */
    CodeBlock issue(ValidatedStep s, Map<String, CodeBlock> params) {
        StepPlan plan = s.plan();
        if (!plan.decidedAtBind()) {
            return issue(plan.proven(), params);
        }
        return CodeBlock.builder()
                .beginControlFlow("if ($N)", name(s.name() + "Fused"))
                .add(issue(plan.atBind(), params))
                .nextControlFlow("else")
                .add(issue(plan.proven(), params))
                .endControlFlow()
                .build();
    }

    /** Each batch's calls, in a group where grouped, each call under the C of the declared ops it serves. */
    private CodeBlock issue(StepPlan.Issue plan, Map<String, CodeBlock> params) {
        CodeBlock.Builder code = CodeBlock.builder();
        for (StepPlan.Batch batch : plan.batches()) {
            if (batch.grouped()) {
                code.add(Comments.call(
                                CNames.ccl("GroupStart"),
                                List.of(),
                                batch.aggregated()
                                        ? "the calls up to GroupEnd are independent; one launch serves them"
                                        : ""))
                        .addStatement("$N.groupStart()", name("comm"));
            }
            for (ValidatedOp call : batch.calls()) {
                if (call.isFused()) {
                    for (ValidatedOp declared : call.fusedFrom()) {
                        code.add(cComment(declared, declared.kind().annotation() + " " + declared.ordinal() + ": "));
                    }
                    code.add(cComment(call, "fused: "));
                } else {
                    code.add(cComment(call, ""));
                }
                code.addStatement(call(call, params));
            }
            if (batch.grouped()) {
                code.add(Comments.call(CNames.ccl("GroupEnd"), List.of())).addStatement("$N.groupEnd()", name("comm"));
            }
        }
        return code.build();
    }

    /** The C of the call, after {@code prefix}: {@code // {nccl,mccl}AllReduce(in, out, 64, ...)}. */
    private CodeBlock cComment(ValidatedOp o, String prefix) {
        List<String> args = new ArrayList<>();
        for (ValidatedOp.Side side : o.sides()) {
            args.add(CNames.pointer(
                    side.buffer(),
                    pipeline.buffer(side.buffer()).type(),
                    side.offset().toString()));
        }
        args.add(o.count().toString());
        args.add(CNames.dataType(typeOf(o)));
        for (ValidatedOp.Argument argument : o.arguments()) {
            if (argument instanceof ValidatedOp.Reduction reduction) {
                args.add(CNames.reduceOp(reduction.op()));
            } else if (argument instanceof ValidatedOp.Root root) {
                args.add(Integer.toString(root.rank()));
            } else if (argument instanceof ValidatedOp.Target peer) {
                args.add(CNames.peer(peer.peer(), peer.rank()));
            }
        }
        args.add("comm");
        args.add("stream");
        return Comments.call(prefix + CNames.ccl(o.kind().cName()), args);
    }

    /** The Communicator call: the slices made at bind where there are, else buffer and element offset, as Java. */
    CodeBlock call(ValidatedOp o, Map<String, CodeBlock> params) {
        // one block for the whole call, not one per argument joined into another: this is made for every op
        CodeBlock.Builder call =
                CodeBlock.builder().add("$N.$L(", name("comm"), o.kind().method());
        boolean fixed = arguments.containsKey(key(o, o.sides().get(0)));
        for (ValidatedOp.Side side : o.sides()) {
            if (fixed) {
                call.add("$L,$W", argument(o, side));
            } else {
                call.add("$N,$W$L,$W", name(side), generation.value(side.offset(), params));
            }
        }
        call.add("$L,$W$T.$L", generation.value(o.count(), params), DATA_TYPE, typeOf(o));
        for (ValidatedOp.Argument argument : o.arguments()) {
            if (argument instanceof ValidatedOp.Reduction reduction) {
                call.add(",$W$T.$L", REDUCE_OP, reduction.op());
            } else if (argument instanceof ValidatedOp.Root root) {
                call.add(",$W$L", root.rank());
            } else if (argument instanceof ValidatedOp.Target peer) {
                call.add(
                        ",$W$T.$L.resolve($N.rank(), $N.size(), $L)",
                        PEER,
                        peer.peer(),
                        name("comm"),
                        name("comm"),
                        peer.rank());
            }
        }
        return call.add(",$W$N)", name("stream")).build();
    }
}
