package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Argument values of a step of a {@link Registration#GRAPH} pipeline to capture at bind, so that the first calls
 * with them launch a graph instead of capturing one. Give one {@code @Capture} per parameter of the step, each
 * parameter exactly once; the tuples captured are the cartesian product of the values, in the order of the step's
 * parameters, the last parameter varying fastest: {@code @Capture(param = "offset", values = {0, 1024})
 * @Capture(param = "n", values = {256, 512})} on {@code step(long offset, long n)} captures (0, 256), (0, 512),
 * (1024, 256) and (1024, 512). Their number may not exceed {@link CollectivePipeline#graphCache()}; each tuple is
 * checked at bind as a call with it would be.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
@Repeatable(Capture.List.class)
public @interface Capture {
    /** The name of one of the step's parameters. */
    String param();

    /** The values of that parameter to capture (at least one). */
    long[] values();

    /** Holds repeated {@link Capture} annotations of one step. */
    @Documented
    @Retention(RetentionPolicy.CLASS)
    @Target(ElementType.METHOD)
    @interface List {
        /** The repeated annotations, one per parameter of the step. */
        Capture[] value();
    }
}
