package dev.collectives.processor.validation;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.PipelineModel;
import java.util.Objects;
import javax.lang.model.type.TypeMirror;

/**
 * An accessor of a validated pipeline, every attribute known; where its memory comes from is its {@link Origin}:
 * a {@code @Buffer}'s {@link Allocation}, a {@code @View}'s {@link Placement}, or an {@code @External}'s
 * {@link Supplied}.
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
        String name,
        DataType type,
        Expr count,
        Origin origin,
        String root,
        boolean registered,
        boolean legacyServedByIbSharp,
        boolean window,
        boolean windowSymmetric) {
    /** Where an accessor's memory comes from. */
    public sealed interface Origin permits Allocation, Placement, Supplied {}

    /** How a {@code @Buffer} is allocated: {@code customAllocator} is read only for {@link Allocator#CUSTOM}. */
    public record Allocation(Allocator allocator, TypeMirror customAllocator) implements Origin {
        public Allocation {
            Objects.requireNonNull(allocator, "allocator");
            Objects.requireNonNull(customAllocator, "customAllocator");
        }
    }

    /** Where a {@code @View} lies: {@code offsetBytes} into the accessor {@code of}. */
    public record Placement(String of, Expr offsetBytes) implements Origin {
        public Placement {
            Objects.requireNonNull(of, "of");
            Objects.requireNonNull(offsetBytes, "offsetBytes");
        }
    }

    /** An {@code @External}: memory the caller passes to bind. */
    public record Supplied() implements Origin {}

    public ValidatedBuffer {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(count, "count");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(root, "root");
    }

    /** The validated form of {@code b}, whose attributes {@link Validation} found known. */
    static ValidatedBuffer of(PipelineModel model, BufferDecl b) {
        Origin origin = switch (b.kind()) {
            case BUFFER -> new Allocation(b.allocator(), b.customAllocator());
            case VIEW -> new Placement(b.of(), b.expression("offsetBytes"));
            case EXTERNAL -> new Supplied();
        };
        return new ValidatedBuffer(
                b.name(),
                b.type(),
                b.expression("count"),
                origin,
                model.root(b).orElseThrow().name(),
                model.isRegistered(b),
                model.legacyServedByIbSharp(b),
                b.isWindow(),
                b.windowSymmetric());
    }

    /** Which annotation declared it. */
    public BufferDecl.Kind kind() {
        return origin instanceof Allocation
                ? BufferDecl.Kind.BUFFER
                : origin instanceof Placement ? BufferDecl.Kind.VIEW : BufferDecl.Kind.EXTERNAL;
    }
}
