package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A typed window into a {@link Buffer} at a byte offset (seed example 3: one block, send and recv carved from it). */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface View {
    /** The accessor name of the buffer this view lies in. */
    String of();

    long offsetBytes() default 0;

    /** An expression instead of {@link #offsetBytes()}: integer literals, {@link Dim dims} and {@code ranks}, with {@code + - * / %} and parentheses; give one of the two. */
    String offsetBytesExpr() default "";

    /** No default: a view of bytes says {@code UINT8}. */
    DataType type();

    /** Give this or {@link #countExpr()}; the default, -1, means not given. */
    long count() default -1;

    /** An expression instead of {@link #count()}: integer literals, {@link Dim dims} and {@code ranks}, with {@code + - * / %} and parentheses; give one of the two. */
    String countExpr() default "";
}
