package dev.collectives.processor.validation;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.PipelineModel;
import java.util.Objects;
import java.util.Optional;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.TypeMirror;

/**
 * An accessor of a validated pipeline, every attribute known: a {@code @Buffer} has its {@link #allocation()}, a
 * {@code @View} its {@link #placement()}; an {@code @External} has neither.
 *
 * @param count elements of {@code type}
 * @param root the accessor its memory comes from: itself, or the end of a view's {@code of} chain
 * @param registered whether its memory gets registered (never in a NONE pipeline; a view takes its root's)
 * @param legacyServedByIbSharp whether IB SHARP is what registering it is for, so that legacy memory needs no opt-in
 *     (R8, R9)
 * @param window whether a {@code @Window} lies beside it
 * @param windowSymmetric whether that window is symmetric
 */
public record ValidatedBuffer(
        ExecutableElement method,
        BufferDecl.Kind kind,
        String name,
        DataType type,
        Expr count,
        String root,
        boolean registered,
        boolean legacyServedByIbSharp,
        Optional<Allocation> allocation,
        Optional<Placement> placement,
        boolean window,
        boolean windowSymmetric) {
    /** How a {@code @Buffer} is allocated: {@code customAllocator} is read only for {@link Allocator#CUSTOM}. */
    public record Allocation(Allocator allocator, TypeMirror customAllocator) {
        public Allocation {
            Objects.requireNonNull(allocator, "allocator");
            Objects.requireNonNull(customAllocator, "customAllocator");
        }
    }

    /** Where a {@code @View} lies: {@code offsetBytes} into the accessor {@code of}. */
    public record Placement(String of, Expr offsetBytes) {
        public Placement {
            Objects.requireNonNull(of, "of");
            Objects.requireNonNull(offsetBytes, "offsetBytes");
        }
    }

    public ValidatedBuffer {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(count, "count");
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(allocation, "allocation");
        Objects.requireNonNull(placement, "placement");
    }

    /** The validated form of {@code b}, whose attributes {@link Validation} found known. */
    static ValidatedBuffer of(PipelineModel model, BufferDecl b) {
        return new ValidatedBuffer(
                b.method(),
                b.kind(),
                b.name(),
                b.type(),
                b.expression("count"),
                model.root(b).orElseThrow().name(),
                model.isRegistered(b),
                model.legacyServedByIbSharp(b),
                b.kind() == BufferDecl.Kind.BUFFER
                        ? Optional.of(new Allocation(b.allocator(), b.customAllocator()))
                        : Optional.empty(),
                b.kind() == BufferDecl.Kind.VIEW
                        ? Optional.of(new Placement(b.of(), b.expression("offsetBytes")))
                        : Optional.empty(),
                b.isWindow(),
                b.windowSymmetric());
    }
}
