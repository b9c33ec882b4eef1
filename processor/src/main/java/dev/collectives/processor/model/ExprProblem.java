package dev.collectives.processor.model;

import java.util.Collection;

/**
 * An attribute the reader could not turn into an expression: a twin pair given twice or not at all, a parse error,
 * or an unknown name (with the names in scope, for a suggestion).
 */
public record ExprProblem(Kind kind, Site site, String message, String unknownName, Collection<String> inScope) {
    /** Which tag reports it. */
    public enum Kind {
        TWINS,
        EXPRESSION
    }
}
