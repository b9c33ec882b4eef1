package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** mcclRecv(buffer + offset, count, type, peer, comm, stream), grouped with the step's other point-to-point ops. Offsets and counts are in elements of the buffers' type. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(Recv.List.class)
public @interface Recv {
    String buffer();

    long count();

    long offset() default 0;

    Peer peer() default Peer.PREVIOUS;

    /** With {@link Peer#ABSOLUTE}. */
    int peerRank() default -1;

    /** Holds repeated {@link Recv} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        Recv[] value();
    }
}
