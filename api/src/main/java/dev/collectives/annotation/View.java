package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A typed window into a {@link Buffer} (or another view) at a byte offset, as in the NCCL/MCCL user-buffer-registration
 * guide's third example: one block, registered once, with send and recv carved from it. Its offset,
 * {@link #offsetBytes()}, is in <em>bytes</em> from the head of {@link #of()}, because the views of one block may
 * have different types; the offsets of the ops that use it ({@code sendOffset}, {@code recvOffset}, {@code offset})
 * are in <em>elements</em> of its {@link #type()}. With {@code @View(of = "block", offsetBytes = 4096, type =
 * DataType.FLOAT32, count = 1024)}, an op with {@code recvOffset = 256} starts at byte 4096 + 256 × 4 of the block.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface View {
    /** The accessor name of the buffer this view lies in. */
    String of();

    /**
     * Where the view starts in the buffer it is {@code of}, in bytes (not elements: the views of one block may have
     * different types); a multiple of the view type's size (R7).
     */
    long offsetBytes() default 0;

    /** An expression instead of {@link #offsetBytes()}: integer literals, {@link Dim dims} and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String offsetBytesExpr() default "";

    /**
     * The element type of the view, which may differ from the type of the buffer it lies in; no default: a view of
     * bytes says {@code UINT8}.
     */
    DataType type();

    /** Give this or {@link #countExpr()}; the default, -1, means not given. */
    long count() default -1;

    /** An expression instead of {@link #count()}: integer literals, {@link Dim dims} and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String countExpr() default "";
}
