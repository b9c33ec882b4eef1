package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** mcclAlltoAll(send + sendOffset, recv + recvOffset, count, type, comm, stream): count elements to and from each rank. Offsets and counts are in elements of the buffers' type. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(AllToAll.List.class)
public @interface AllToAll {
    String send();

    String recv();

    long count();

    long sendOffset() default 0;

    long recvOffset() default 0;

    /** Holds repeated {@link AllToAll} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        AllToAll[] value();
    }
}
