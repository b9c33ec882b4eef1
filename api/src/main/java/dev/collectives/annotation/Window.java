package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Beside {@link Buffer}: the buffer is window-registered, collectively, at bind (R12). */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface Window {
    /** A symmetric window (the same offset on every rank, R12), or an asymmetric one. */
    boolean symmetric() default true;
}
