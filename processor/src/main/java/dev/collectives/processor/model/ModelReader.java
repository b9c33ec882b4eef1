package dev.collectives.processor.model;

import dev.collectives.annotation.Acceleration;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.expr.ExprException;
import dev.collectives.processor.expr.ExprParser;
import dev.collectives.processor.expr.Prover;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;

/**
 * Reads a pipeline type's annotation mirrors into a {@link PipelineModel}. It never throws on malformed input: what
 * cannot be read is left null for the validators (and javac) to report. Op annotations are read in source order,
 * containers ({@code AllReduce.List}) unwrapped in place, so a step's ops keep their declaration order.
 */
public final class ModelReader {
    /** The DSL's annotations: every one of them that goes on a method belongs in a pipeline. */
    public static final String PACKAGE = "dev.collectives.annotation.";

    static final String BUFFER = PACKAGE + "Buffer";
    static final String VIEW = PACKAGE + "View";
    static final String EXTERNAL = PACKAGE + "External";
    public static final String WINDOW = PACKAGE + "Window";
    static final String GROUPED = PACKAGE + "Grouped";
    static final String WRITTEN_ORDER = PACKAGE + "WrittenOrder";
    static final String DIM = PACKAGE + "Dim";
    static final String CAPTURE = PACKAGE + "Capture";
    static final String CAPTURE_LIST = CAPTURE + ".List";
    /** The communicator's size, in every expression. */
    public static final String RANKS = "ranks";

    public static final String PIPELINE = PACKAGE + "CollectivePipeline";

    private final Elements elements;
    private final SourceOrder sourceOrder;

    /** @param sourceOrder the annotations' order as written, where the compiler can tell it */
    public ModelReader(Elements elements, SourceOrder sourceOrder) {
        this.elements = elements;
        this.sourceOrder = sourceOrder;
    }

    /** The {@code @CollectivePipeline} on {@code type}, if it has one. */
    public static Optional<AnnotationMirror> pipelineMirror(TypeElement type) {
        return type.getAnnotationMirrors().stream()
                .filter(m -> Mirrors.qualifiedName(m).equals(PIPELINE))
                .findFirst()
                .map(m -> m);
    }

    public PipelineModel read(TypeElement type, AnnotationMirror pipelineMirror) {
        PipelineModel model = new PipelineModel(type, pipelineMirror);
        Map<String, AnnotationValue> values = Mirrors.valuesWithDefaults(elements, pipelineMirror);
        model.registration = Mirrors.enumValue(values.get("registration"), Registration.class);
        for (AnnotationValue v : Mirrors.list(values.get("acceleration"))) {
            Acceleration a = Mirrors.enumValue(v, Acceleration.class);
            if (a != null) {
                model.acceleration.add(a);
            }
        }
        model.allowLegacyRegistration = Boolean.TRUE.equals(Mirrors.bool(values.get("allowLegacyRegistration")));
        Integer ranks = Mirrors.intValue(values.get("ranks"));
        model.ranks = ranks == null ? 0 : ranks;
        Integer graphCache = Mirrors.intValue(values.get("graphCache"));
        model.graphCache = graphCache == null ? 0 : graphCache;
        GraphCacheOverflow overflow = Mirrors.enumValue(values.get("graphCacheOverflow"), GraphCacheOverflow.class);
        model.graphCacheOverflow = overflow == null ? GraphCacheOverflow.WARN : overflow;
        model.plansSteps = !Boolean.FALSE.equals(Mirrors.bool(values.get("plan")));
        for (Element member : type.getEnclosedElements()) {
            if (member.getKind() == ElementKind.METHOD && member.getModifiers().contains(Modifier.ABSTRACT)) {
                member.getAnnotationMirrors().stream()
                        .filter(m -> Mirrors.qualifiedName(m).equals(DIM))
                        .findFirst()
                        .ifPresent(m -> model.dims.add(new DimDecl((ExecutableElement) member, m)));
            }
        }
        for (Element member : type.getEnclosedElements()) {
            if (member.getKind() != ElementKind.METHOD) {
                continue;
            }
            if (member.getModifiers().contains(Modifier.ABSTRACT)) {
                readMethod(model, (ExecutableElement) member);
            } else if (member.getAnnotationMirrors().stream()
                    .anyMatch(m -> Mirrors.qualifiedName(m).startsWith(PACKAGE))) {
                model.concrete.add((ExecutableElement) member);
            }
        }
        model.steps.forEach(s -> s.ops.forEach(o -> o.resolveSides(model)));
        model.unresolved.addAll(Unresolved.in(type));
        return model;
    }

    /**
     * Methods with an accessor annotation are accessors; with ops, @Grouped or @WrittenOrder, steps; else
     * unannotated.
     */
    private void readMethod(PipelineModel model, ExecutableElement method) {
        List<? extends AnnotationMirror> mirrors = method.getAnnotationMirrors();
        if (model.dim(method.getSimpleName().toString())
                .filter(d -> d.method() == method)
                .isPresent()) {
            return;
        }
        BufferDecl buffer = null;
        for (AnnotationMirror m : mirrors) {
            BufferDecl.Kind kind = bufferKind(Mirrors.qualifiedName(m));
            if (kind != null && buffer == null) {
                buffer = readBuffer(model, method, m, kind);
            }
        }
        if (buffer != null) {
            for (AnnotationMirror m : mirrors) {
                String name = Mirrors.qualifiedName(m);
                if (name.equals(WINDOW)) {
                    buffer.windowMirror = m;
                    buffer.windowSymmetric =
                            Mirrors.bool(Mirrors.valuesWithDefaults(elements, m).get("symmetric"));
                } else if (name.startsWith(PACKAGE) && m != buffer.mirror()) {
                    buffer.stray.add(m);
                }
            }
            model.buffers.add(buffer);
            return;
        }
        StepDecl step = new StepDecl(method);
        for (AnnotationMirror m : mirrors) {
            String name = Mirrors.qualifiedName(m);
            OpKind single = OpKind.byAnnotation(name);
            OpKind container = OpKind.byContainer(name);
            if (single != null) {
                step.ops.add(readOp(model, method, m, single, step.ops.size()));
            } else if (container != null) {
                for (AnnotationMirror inner : contained(m)) {
                    step.ops.add(readOp(model, method, inner, container, step.ops.size()));
                }
            } else if (name.equals(CAPTURE)) {
                step.captures.add(readCapture(method, m));
            } else if (name.equals(CAPTURE_LIST)) {
                contained(m).forEach(inner -> step.captures.add(readCapture(method, inner)));
            } else if (name.equals(GROUPED)) {
                step.groupedMirror = m;
            } else if (name.equals(WRITTEN_ORDER)) {
                step.writtenOrder = true;
            } else if (name.startsWith(PACKAGE)) {
                step.stray.add(m);
            }
        }
        reorder(step, sourceOrder.annotationNames(method));
        if (step.ops.isEmpty() && step.groupedMirror == null && !step.writtenOrder && step.stray.isEmpty()) {
            model.unannotated.add(method);
        } else {
            model.steps.add(step);
        }
    }

    private static List<AnnotationMirror> contained(AnnotationMirror container) {
        List<AnnotationMirror> inner = new ArrayList<>();
        for (AnnotationValue v : Mirrors.list(Mirrors.explicitValues(container).get("value"))) {
            AnnotationMirror m = Mirrors.annotation(v);
            if (m != null) {
                inner.add(m);
            }
        }
        return inner;
    }

    private CaptureDecl readCapture(ExecutableElement step, AnnotationMirror mirror) {
        Map<String, AnnotationValue> v = Mirrors.valuesWithDefaults(elements, mirror);
        List<Long> values = new ArrayList<>();
        Mirrors.list(v.get("values")).forEach(value -> values.add(Mirrors.longValue(value)));
        return new CaptureDecl(step, mirror, Mirrors.string(v.get("param")), values);
    }

    /**
     * javac gathers repeated annotations into a container at the first one's place, so {@code @AllReduce @Broadcast
     * @AllReduce} reads back as [AllReduce.List, Broadcast]. Where the written order is known, ops are put back in
     * it (each kind's ops keep their relative order, which the container preserves).
     */
    private static void reorder(StepDecl step, List<String> written) {
        if (written.isEmpty()) {
            step.orderUnknown = step.ops.stream().map(OpDecl::kind).distinct().count() > 1
                    && step.ops.size()
                            > step.ops.stream().map(OpDecl::kind).distinct().count();
            return;
        }
        if (written.contains("List")) {
            return;
        }
        Map<OpKind, java.util.Deque<OpDecl>> byKind = new java.util.EnumMap<>(OpKind.class);
        step.ops.forEach(o -> byKind.computeIfAbsent(o.kind(), k -> new java.util.ArrayDeque<>())
                .add(o));
        List<OpDecl> ordered = new java.util.ArrayList<>();
        for (String name : written) {
            OpKind kind = OpKind.byAnnotation(PACKAGE + name);
            java.util.Deque<OpDecl> queue = kind == null ? null : byKind.get(kind);
            if (queue != null && !queue.isEmpty()) {
                ordered.add(queue.poll());
            }
        }
        if (ordered.size() != step.ops.size()) {
            return;
        }
        step.ops.clear();
        for (OpDecl o : ordered) {
            step.ops.add(o.withIndex(step.ops.size()));
        }
    }

    /** @Buffer, @View or @External: the annotations that make a method an accessor. */
    public static boolean isAccessorAnnotation(String annotation) {
        return bufferKind(annotation) != null;
    }

    private static BufferDecl.Kind bufferKind(String annotation) {
        switch (annotation) {
            case BUFFER:
                return BufferDecl.Kind.BUFFER;
            case VIEW:
                return BufferDecl.Kind.VIEW;
            case EXTERNAL:
                return BufferDecl.Kind.EXTERNAL;
            default:
                return null;
        }
    }

    private BufferDecl readBuffer(
            PipelineModel model, ExecutableElement method, AnnotationMirror mirror, BufferDecl.Kind kind) {
        BufferDecl b = new BufferDecl(method, mirror, kind);
        Map<String, AnnotationValue> v = Mirrors.valuesWithDefaults(elements, mirror);
        Map<String, Expr.Scope> scope = scope(model, null);
        b.type = Mirrors.enumValue(v.get("type"), DataType.class);
        b.typeDefaulted = !Mirrors.explicitValues(mirror).containsKey("type");
        b.count = quantity(model, b, v, "count", scope, true);
        if (kind == BufferDecl.Kind.BUFFER) {
            b.allocator = Mirrors.enumValue(v.get("allocator"), Allocator.class);
            b.customAllocator = Mirrors.type(v.get("customAllocator"));
            b.registered = Mirrors.bool(v.get("registered"));
        } else if (kind == BufferDecl.Kind.VIEW) {
            b.of = Mirrors.string(v.get("of"));
            b.offsetBytes = quantity(model, b, v, "offsetBytes", scope, false);
        }
        return b;
    }

    private OpDecl readOp(
            PipelineModel model, ExecutableElement method, AnnotationMirror mirror, OpKind kind, int index) {
        OpDecl op = new OpDecl(method, mirror, kind, index);
        Map<String, AnnotationValue> v = Mirrors.valuesWithDefaults(elements, mirror);
        Map<String, Expr.Scope> scope = scope(model, method);
        if (kind.hasSend()) {
            op.send = Mirrors.string(v.get(kind.sendAttribute()));
            op.sendOffset = quantity(model, op, v, kind.sendOffsetAttribute(), scope, false);
        }
        if (kind.hasRecv()) {
            op.recv = Mirrors.string(v.get(kind.recvAttribute()));
            op.recvOffset = quantity(model, op, v, kind.recvOffsetAttribute(), scope, false);
        }
        op.count = quantity(model, op, v, kind.countAttribute(), scope, true);
        if (kind.reduces()) {
            op.op = Mirrors.enumValue(v.get("op"), ReduceOp.class);
        }
        if (kind.hasRoot()) {
            op.root = Mirrors.intValue(v.get("root"));
        }
        if (kind.isPointToPoint()) {
            op.peer = Mirrors.enumValue(v.get("peer"), Peer.class);
            op.peerRank = Mirrors.intValue(v.get("peerRank"));
        }
        return op;
    }

    /** The names an expression may use: the dims, {@code ranks}, and the step's parameters (none for accessors). */
    private static Map<String, Expr.Scope> scope(PipelineModel model, ExecutableElement step) {
        Map<String, Expr.Scope> scope = new LinkedHashMap<>();
        model.dims.forEach(d -> scope.put(d.name(), Expr.Scope.DIM));
        scope.put(RANKS, Expr.Scope.RANKS);
        if (step != null) {
            step.getParameters().forEach(p -> scope.put(p.getSimpleName().toString(), Expr.Scope.PARAM));
        }
        return scope;
    }

    /**
     * A numeric attribute given as a number or as its {@code ...Expr} twin: records its expression on {@code target}
     * and returns its value when known at compile time (literals only, or {@code ranks} declared), else null.
     * Problems (both twins, neither when {@code required}, a parse error) are recorded for [DSL twins] and
     * [DSL expression].
     */
    private static Long quantity(
            PipelineModel model,
            Annotated target,
            Map<String, AnnotationValue> values,
            String attribute,
            Map<String, Expr.Scope> scope,
            boolean required) {
        String twin = attribute + "Expr";
        boolean numeric = target.isExplicit(attribute);
        if (numeric && target.isExplicit(twin)) {
            model.problems.add(new ExprProblem(
                    ExprProblem.Kind.TWINS,
                    target.site(twin),
                    "both `" + attribute + "` and `" + twin + "` are given; give one",
                    null,
                    List.of()));
            return null;
        }
        if (!target.isExplicit(twin)) {
            if (required && !numeric) {
                model.problems.add(new ExprProblem(
                        ExprProblem.Kind.TWINS,
                        target.site(),
                        "give `" + attribute + "` (a number) or `" + twin + "` (an expression)",
                        null,
                        List.of()));
                return null;
            }
            Long value = Mirrors.longValue(values.get(attribute));
            if (value != null) {
                target.expressions.put(attribute, new Expr.Literal(value));
            }
            return value;
        }
        String text = Mirrors.string(values.get(twin));
        if (text == null) {
            return null;
        }
        try {
            Expr e = ExprParser.parse(text, scope);
            target.expressions.put(attribute, e);
            boolean fixed = e.isKnownWith(model.ranks);
            Long value = fixed ? new Prover(model.ranks).constant(e) : null;
            if (fixed && value == null) {
                model.problems.add(new ExprProblem(
                        ExprProblem.Kind.EXPRESSION,
                        target.site(twin),
                        twin + " = \"" + text + "\" overflows a long or divides by zero",
                        null,
                        List.of()));
            }
            return value;
        } catch (ExprException e) {
            model.problems.add(new ExprProblem(
                    ExprProblem.Kind.EXPRESSION,
                    target.site(twin),
                    twin + " = \"" + text + "\": " + e.getMessage(),
                    e.unknownName(),
                    scope.keySet()));
            return null;
        }
    }
}
