package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * ncclScatter/mcclScatter(send + sendOffset, recv + recvOffset, recvCount, type, root, comm, stream): the root sends
 * recvCount × ranks elements, rank-major, and every rank receives its recvCount, rank r those from element
 * r × recvCount. Only the root uses send; another rank may name one, which the op leaves alone. Offsets and counts are
 * in elements of the buffers' type.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(Scatter.List.class)
public @interface Scatter {
    /** The accessor (method name) of the send buffer, as in {@code send = "sendbuff"}; only the root uses it. */
    String send();

    /** The accessor (method name) of the recv buffer. */
    String recv();

    /** Give this or {@link #recvCountExpr()}; the default, -1, means not given. */
    long recvCount() default -1;

    /** An expression instead of {@link #recvCount()}: integer literals, {@link Dim dims}, the step's {@code long}/{@code int} parameters and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String recvCountExpr() default "";

    /** The root rank, which sends every rank's share; it must exist. */
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

    /** Holds repeated {@link Scatter} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        /** The repeated annotations, in the order written. */
        Scatter[] value();
    }
}
