package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A buffer the user passes to bind, in declaration order; its head offset is compared across ranks at bind (R2). */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface External {
    /** No default: an external of bytes says {@code UINT8}. */
    DataType type();

    /** Give this or {@link #countExpr()}; the default, -1, means not given. */
    long count() default -1;

    /** An expression instead of {@link #count()}: integer literals, {@link Dim dims} and {@code ranks}, with {@code + - * / %} and parentheses; give one of the two. */
    String countExpr() default "";
}
