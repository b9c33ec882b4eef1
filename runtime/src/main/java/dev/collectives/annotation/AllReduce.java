package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** mcclAllReduce(send + sendOffset, recv + recvOffset, count, type, op, comm, stream). Offsets and counts are in elements of the buffers' type. */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(AllReduce.List.class)
public @interface AllReduce {
    String send();

    String recv();

    long count();

    ReduceOp op() default ReduceOp.SUM;

    long sendOffset() default 0;

    long recvOffset() default 0;

    /** Holds repeated {@link AllReduce} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        AllReduce[] value();
    }
}
