package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A size given at bind, on an abstract accessor without parameters returning {@code long} or {@code int}: the
 * generated {@code binder(comm, stream)} has a setter of the same name, and the accessor returns the bound value.
 * Expressions ({@code countExpr}, {@code offsetBytesExpr}, ...) name it; a dim is at least 1 (bind rejects less).
 * Every rank binds the same value: dims are part of the bind fingerprint, so a rank that bound another value fails
 * on every rank with R14, naming the dim and both values.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface Dim {}
