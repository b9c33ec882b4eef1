package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** mcclBroadcast(send + sendOffset, recv + recvOffset, count, type, root, comm, stream). Offsets and counts are in elements of the buffers' type. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(Broadcast.List.class)
public @interface Broadcast {
    String send();

    String recv();

    long count();

    int root() default 0;

    long sendOffset() default 0;

    long recvOffset() default 0;

    /** Holds repeated {@link Broadcast} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        Broadcast[] value();
    }
}
