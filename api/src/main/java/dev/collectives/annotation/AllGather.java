package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** ncclAllGather/mcclAllGather(send + sendOffset, recv + recvOffset, sendCount, type, comm, stream); recv holds sendCount × ranks. Offsets and counts are in elements of the buffers' type. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(AllGather.List.class)
public @interface AllGather {
    /** The accessor (method name) of the send buffer, as in {@code send = "sendbuff"}. */
    String send();

    /** The accessor (method name) of the recv buffer. */
    String recv();

    /** Give this or {@link #sendCountExpr()}; the default, -1, means not given. */
    long sendCount() default -1;

    /** An expression instead of {@link #sendCount()}: integer literals, {@link Dim dims}, the step's {@code long}/{@code int} parameters and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String sendCountExpr() default "";

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

    /** Holds repeated {@link AllGather} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        /** The repeated annotations, in the order written. */
        AllGather[] value();
    }
}
