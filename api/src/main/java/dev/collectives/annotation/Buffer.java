package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** A buffer the pipeline allocates at bind (one root allocation), on an accessor returning DeviceBuffer. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface Buffer {
    /** The element type; {@code count} and the ops' offsets and counts are in elements of it. */
    DataType type() default DataType.UINT8;

    /** Elements of {@link #type()}: give this or {@link #countExpr()}; the default, -1, means not given. */
    long count() default -1;

    /** An expression instead of {@link #count()}: integer literals, {@link Dim dims} and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String countExpr() default "";

    /** Where the memory comes from: {@code ncclMemAlloc}/{@code mcclMemAlloc} by default (R3, R11). */
    Allocator allocator() default Allocator.MEM_ALLOC;

    /** With {@link Allocator#CUSTOM}: a concrete DeviceAllocator annotated {@link QualifiedAllocator}. */
    Class<?> customAllocator() default void.class;

    /** false: this buffer is never registered, even in a GRAPH or LOCAL pipeline (R1 then constrains its ops). */
    boolean registered() default true;
}
