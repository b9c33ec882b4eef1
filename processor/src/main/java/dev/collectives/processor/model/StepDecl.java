package dev.collectives.processor.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.VariableElement;

/** A step method: its ops in declaration order, and whether it is grouped. */
public final class StepDecl {
    private final ExecutableElement method;
    final List<OpDecl> ops = new ArrayList<>();
    AnnotationMirror groupedMirror;
    boolean writtenOrder;
    boolean orderUnknown;
    final List<AnnotationMirror> stray = new ArrayList<>();
    final List<CaptureDecl> captures = new ArrayList<>();

    StepDecl(ExecutableElement method) {
        this.method = method;
    }

    public ExecutableElement method() {
        return method;
    }

    public String name() {
        return method.getSimpleName().toString();
    }

    /** The step's parameters, in order: values given at each call. */
    public List<? extends VariableElement> parameters() {
        return method.getParameters();
    }

    /** Its {@code @Capture} annotations (GRAPH). */
    public List<CaptureDecl> captures() {
        return Collections.unmodifiableList(captures);
    }

    public List<OpDecl> ops() {
        return Collections.unmodifiableList(ops);
    }

    public boolean explicitlyGrouped() {
        return groupedMirror != null;
    }

    /**
     * One ncclGroupStart/mcclGroupStart … ncclGroupEnd/mcclGroupEnd around the ops: asked for, or needed by
     * point-to-point ops.
     */
    public boolean grouped() {
        return explicitlyGrouped() || ops.stream().anyMatch(o -> o.kind().isPointToPoint());
    }

    /** Whether {@code @WrittenOrder} keeps the step out of the plan. */
    public boolean writtenOrder() {
        return writtenOrder;
    }

    /**
     * Whether ops of several kinds, some repeated, could not be put back in written order (the compiler hides its
     * source trees, e.g. under Gradle's incremental processing): each kind's ops then run together.
     */
    public boolean orderUnknown() {
        return orderUnknown;
    }

    /** Annotations of this project that do not belong on a step (e.g. {@code @Window}). */
    public List<AnnotationMirror> stray() {
        return Collections.unmodifiableList(stray);
    }

    @Override
    public String toString() {
        return name() + "()";
    }
}
