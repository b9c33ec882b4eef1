package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** ncclSend/mcclSend(buffer + offset, count, type, peer, comm, stream), grouped with the step's other point-to-point ops. Offsets and counts are in elements of the buffers' type. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(Send.List.class)
public @interface Send {
    /** The accessor (method name) of the buffer sent from. */
    String buffer();

    /** Give this or {@link #countExpr()}; the default, -1, means not given. */
    long count() default -1;

    /** An expression instead of {@link #count()}: integer literals, {@link Dim dims}, the step's {@code long}/{@code int} parameters and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String countExpr() default "";

    /** Where the op starts in the buffer, in elements of its type (not bytes). */
    long offset() default 0;

    /** An expression instead of {@link #offset()}: integer literals, {@link Dim dims}, the step's {@code long}/{@code int} parameters and {@code ranks}, with {@code + - * / %}, {@code floorDiv(a, b)} and parentheses; each {@code /} must leave no remainder (R13), {@code floorDiv} rounds down. Give one of the two. */
    String offsetExpr() default "";

    /** The rank sent to: {@link Peer#NEXT} by default, or {@link Peer#ABSOLUTE} with {@link #peerRank()}. */
    Peer peer() default Peer.NEXT;

    /** With {@link Peer#ABSOLUTE}. */
    int peerRank() default -1;

    /** Holds repeated {@link Send} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        /** The repeated annotations, in the order written. */
        Send[] value();
    }
}
