package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * ncclGather/mcclGather(send + sendOffset, recv + recvOffset, sendCount, type, root, comm, stream): every rank sends
 * sendCount elements and the root receives them all, rank-major: recv holds sendCount × ranks, rank r's at element
 * r × sendCount. Only the root uses recv; another rank may name one, which the op leaves alone. Offsets and counts are
 * in elements of the buffers' type.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(Gather.List.class)
public @interface Gather {
    /** The accessor (method name) of the send buffer, as in {@code send = "sendbuff"}. */
    String send();

    /** The accessor (method name) of the recv buffer, which only the root uses. */
    String recv();

    /** Give this or {@link #sendCountExpr()}; the default, -1, means not given. */
    long sendCount() default -1;

    /** An expression instead of {@link #sendCount()}: integer literals, {@link Dim dims}, the step's {@code long}/{@code int} parameters and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String sendCountExpr() default "";

    /** The root rank, which receives every rank's send; it must exist. */
    int root() default 0;

    /**
     * Where the op starts in the send buffer, in elements of its type (not bytes, unlike {@link View#offsetBytes()}).
     */
    long sendOffset() default 0;

    /** An expression instead of {@link #sendOffset()}: integer literals, {@link Dim dims}, the step's {@code long}/{@code int} parameters and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String sendOffsetExpr() default "";

    /**
     * Where the op starts in the recv buffer, in elements of its type (not bytes, unlike {@link View#offsetBytes()}).
     */
    long recvOffset() default 0;

    /** An expression instead of {@link #recvOffset()}: integer literals, {@link Dim dims}, the step's {@code long}/{@code int} parameters and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String recvOffsetExpr() default "";

    /** Holds repeated {@link Gather} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        /** The repeated annotations, in the order written. */
        Gather[] value();
    }
}
