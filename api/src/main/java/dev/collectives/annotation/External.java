package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A buffer your program owns and passes to the generated {@code bind(comm, stream, externals...)}, in the order the
 * {@code @External} accessors are declared. Make one with {@code comm.allocate(...)}, or take a
 * {@code DeviceBuffer.slice} or {@code view} of a larger buffer; its type must be {@link #type()} and it must hold
 * at least {@link #count()} elements:
 *
 * <pre>{@code
 * @External(type = DataType.FLOAT32, count = 1024) DeviceBuffer grads();
 *
 * try (DeviceBuffer block = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4096);
 *      var p = CollectiveTrain.bind(comm, stream, block.slice(1024, 1024))) { ... }
 * }</pre>
 *
 * The pipeline never frees it: close it yourself, after the pipeline. Where registration needs the same offset on
 * every rank (R2), bind compares the buffer's offset from the head of its allocation across ranks.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface External {
    /** The element type the buffer passed to {@code bind} must have (R13); no default: an external of bytes says
     * {@code UINT8}. */
    DataType type();

    /** Give this or {@link #countExpr()}; the default, -1, means not given. */
    long count() default -1;

    /** An expression instead of {@link #count()}: integer literals, {@link Dim dims} and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String countExpr() default "";
}
