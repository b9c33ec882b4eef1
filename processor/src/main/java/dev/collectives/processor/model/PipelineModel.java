package dev.collectives.processor.model;

import dev.collectives.annotation.Acceleration;
import dev.collectives.annotation.GraphCacheOverflow;
import dev.collectives.annotation.Registration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;

/** A {@code @CollectivePipeline} type as read from its annotation mirrors, malformed parts included. */
public final class PipelineModel extends Annotated {
    private final TypeElement type;
    Registration registration;
    final Set<Acceleration> acceleration = EnumSet.noneOf(Acceleration.class);
    boolean allowLegacyRegistration;
    int ranks;
    int graphCache;
    GraphCacheOverflow graphCacheOverflow;
    boolean plansSteps;
    final List<DimDecl> dims = new ArrayList<>();
    final List<ExprProblem> problems = new ArrayList<>();
    final List<BufferDecl> buffers = new ArrayList<>();
    final List<StepDecl> steps = new ArrayList<>();
    final List<ExecutableElement> unannotated = new ArrayList<>();
    final List<ExecutableElement> concrete = new ArrayList<>();
    final List<Unresolved> unresolved = new ArrayList<>();

    PipelineModel(TypeElement type, AnnotationMirror mirror) {
        super(type, mirror);
        this.type = type;
    }

    public TypeElement type() {
        return type;
    }

    /** Null when the attribute is missing or unreadable. */
    public Registration registration() {
        return registration;
    }

    public boolean registers() {
        return registration == Registration.GRAPH || registration == Registration.LOCAL;
    }

    public Set<Acceleration> acceleration() {
        return Collections.unmodifiableSet(acceleration);
    }

    public boolean mtlinkSharp() {
        return acceleration.contains(Acceleration.MTLINK_SHARP);
    }

    public boolean ibSharp() {
        return acceleration.contains(Acceleration.IB_SHARP);
    }

    public boolean allowLegacyRegistration() {
        return allowLegacyRegistration;
    }

    /** The declared world size, or 0 when not declared. */
    public int ranks() {
        return ranks;
    }

    /** Graphs kept per GRAPH step with parameters. */
    public int graphCache() {
        return graphCache;
    }

    /** What each such step does once its graph cache proves too small. */
    public GraphCacheOverflow graphCacheOverflow() {
        return graphCacheOverflow;
    }

    /**
     * Whether the steps' ops may be fused and grouped ({@code @CollectivePipeline(plan)}, true unless turned off);
     * each step's plan itself is the validated pipeline's.
     */
    public boolean plansSteps() {
        return plansSteps;
    }

    /** {@code @Dim} accessors in declaration order. */
    public List<DimDecl> dims() {
        return Collections.unmodifiableList(dims);
    }

    public Optional<DimDecl> dim(String name) {
        for (DimDecl d : dims) { // a loop, not a stream: the writer asks for every expression it writes
            if (d.name().equals(name)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    /** Attributes that could not be read as expressions. */
    public List<ExprProblem> problems() {
        return Collections.unmodifiableList(problems);
    }

    /** Accessors in declaration order. */
    public List<BufferDecl> buffers() {
        return Collections.unmodifiableList(buffers);
    }

    public List<StepDecl> steps() {
        return Collections.unmodifiableList(steps);
    }

    /** Abstract methods with neither an accessor nor an op annotation. */
    public List<ExecutableElement> unannotated() {
        return Collections.unmodifiableList(unannotated);
    }

    /** Default, static or private methods that carry this project's annotations (which only abstract ones may). */
    public List<ExecutableElement> concrete() {
        return Collections.unmodifiableList(concrete);
    }

    /**
     * Types the pipeline names that javac could not resolve: another processor may generate them in a later round;
     * in the last round they are errors.
     */
    public List<Unresolved> unresolved() {
        return Collections.unmodifiableList(unresolved);
    }

    public Optional<BufferDecl> buffer(String name) {
        for (BufferDecl b : buffers) { // a loop, not a stream: the writer and validators ask for every op's buffers
            if (b.name().equals(name)) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    /**
     * The accessor a buffer's memory comes from: itself for {@code @Buffer} and {@code @External}, the end of the
     * {@code of} chain for a view; empty when the chain is broken or circular.
     */
    public Optional<BufferDecl> root(BufferDecl buffer) {
        BufferDecl current = buffer;
        for (int hops = 0; hops <= buffers.size(); hops++) {
            if (current.kind() != BufferDecl.Kind.VIEW) {
                return Optional.of(current);
            }
            Optional<BufferDecl> next = current.of() == null ? Optional.empty() : buffer(current.of());
            if (next.isEmpty()) {
                return Optional.empty();
            }
            current = next.get();
        }
        return Optional.empty();
    }

    /** Byte offset of a buffer from the head of its root accessor; empty when unknown. */
    public Optional<Long> offsetInRoot(BufferDecl buffer) {
        long offset = 0;
        BufferDecl current = buffer;
        for (int hops = 0; hops <= buffers.size(); hops++) {
            if (current.kind() != BufferDecl.Kind.VIEW) {
                return Optional.of(offset);
            }
            if (current.offsetBytes() == null || current.of() == null) {
                return Optional.empty();
            }
            offset += current.offsetBytes();
            Optional<BufferDecl> next = buffer(current.of());
            if (next.isEmpty()) {
                return Optional.empty();
            }
            current = next.get();
        }
        return Optional.empty();
    }

    /**
     * Whether the buffer's memory gets registered: never in a NONE pipeline; for a root {@code @Buffer} its
     * {@code registered} flag; a view takes its root's; an external is registered with the pipeline.
     */
    public boolean isRegistered(BufferDecl buffer) {
        if (!registers()) {
            return false;
        }
        Optional<BufferDecl> root = root(buffer);
        return root.isEmpty()
                || root.get().kind() != BufferDecl.Kind.BUFFER
                || !Boolean.FALSE.equals(root.get().registeredFlag());
    }

    /** Every op that reads or writes memory of {@code root} (directly or through views). */
    public List<OpDecl> opsUsing(BufferDecl root) {
        List<OpDecl> using = new ArrayList<>();
        for (StepDecl step : steps) {
            for (OpDecl op : step.ops()) {
                if (uses(op.send(), root) || uses(op.recv(), root)) {
                    using.add(op);
                }
            }
        }
        return using;
    }

    private boolean uses(String accessor, BufferDecl root) {
        return accessor != null
                && buffer(accessor).flatMap(this::root).filter(r -> r == root).isPresent();
    }

    /**
     * R8/R9: IB SHARP registers memory of any allocator, so a legacy buffer needs no opt-in when IB SHARP is what
     * its registration is for: the pipeline asks for IB SHARP and every op using the buffer is one IB SHARP serves.
     */
    public boolean legacyServedByIbSharp(BufferDecl root) {
        List<OpDecl> using = opsUsing(root);
        return ibSharp()
                && !using.isEmpty()
                && using.stream().allMatch(o -> o.kind().sharpServed());
    }

    /** "Outer_Inner" for nested types, "Name" otherwise. */
    public String flatName() {
        return flatName(type);
    }

    /** The simple name of the class generated for it: "Collective" + {@link #flatName()}. */
    public String generatedName() {
        return generatedName(type);
    }

    /** The simple name of the class generated for the pipeline {@code type}. */
    public static String generatedName(TypeElement type) {
        return "Collective" + flatName(type);
    }

    /** The type's simple name, behind those of the types it lies in, each followed by {@code _}. */
    public static String flatName(TypeElement type) {
        StringBuilder name = new StringBuilder(type.getSimpleName());
        for (var e = type.getEnclosingElement(); e instanceof TypeElement outer; e = outer.getEnclosingElement()) {
            name.insert(0, outer.getSimpleName() + "_");
        }
        return name.toString();
    }

    @Override
    public String toString() {
        return type.getQualifiedName().toString();
    }
}
