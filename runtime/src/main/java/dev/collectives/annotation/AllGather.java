package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** mcclAllGather(send + sendOffset, recv + recvOffset, sendCount, type, comm, stream); recv holds sendCount × ranks. Offsets and counts are in elements of the buffers' type. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(AllGather.List.class)
public @interface AllGather {
    String send();

    String recv();

    long sendCount();

    long sendOffset() default 0;

    long recvOffset() default 0;

    /** Holds repeated {@link AllGather} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        AllGather[] value();
    }
}
