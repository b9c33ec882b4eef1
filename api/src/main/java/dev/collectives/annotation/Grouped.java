package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Wraps the step's ops in one ncclGroupStart/mcclGroupStart … ncclGroupEnd/mcclGroupEnd (steps with send/recv are
 * grouped anyway).
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface Grouped {}
