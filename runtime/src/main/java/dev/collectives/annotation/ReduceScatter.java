package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** mcclReduceScatter(send + sendOffset, recv + recvOffset, recvCount, type, op, comm, stream); send holds recvCount × ranks. Offsets and counts are in elements of the buffers' type. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(ReduceScatter.List.class)
public @interface ReduceScatter {
    String send();

    String recv();

    long recvCount();

    ReduceOp op() default ReduceOp.SUM;

    long sendOffset() default 0;

    long recvOffset() default 0;

    /** Holds repeated {@link ReduceScatter} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        ReduceScatter[] value();
    }
}
