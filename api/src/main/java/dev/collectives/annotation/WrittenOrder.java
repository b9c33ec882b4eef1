package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Issues the step's ops one by one, in the order written: the step is left out of the plan that
 * {@link CollectivePipeline#plan()} makes (no fusion, no aggregation into a group). A {@link Grouped} step stays
 * one group.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface WrittenOrder {}
