package dev.collectives.processor.model;

import dev.collectives.processor.expr.Expr;
import java.util.HashMap;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;

/** Something read from one annotation: keeps the mirror and its explicit values, so diagnostics can point at them. */
public abstract class Annotated {
    private final Element element;
    private final AnnotationMirror mirror;
    private final Map<String, AnnotationValue> explicit;
    /** Numeric attribute ("count") → its value as an expression, from the attribute or from its twin ("countExpr"). */
    final Map<String, Expr> expressions = new HashMap<>();

    protected Annotated(Element element, AnnotationMirror mirror) {
        this.element = element;
        this.mirror = mirror;
        this.explicit = mirror == null ? Map.of() : Mirrors.explicitValues(mirror);
    }

    public Element element() {
        return element;
    }

    public AnnotationMirror mirror() {
        return mirror;
    }

    /** The annotation as a whole. */
    public Site site() {
        return new Site(element, mirror, null);
    }

    /**
     * The value of {@code attribute} as written (or of its twin {@code attribute + "Expr"} when that was written
     * instead), or the annotation when it was left at its default.
     */
    public Site site(String attribute) {
        AnnotationValue value = explicit.get(attribute);
        return new Site(element, mirror, value == null ? explicit.get(attribute + "Expr") : value);
    }

    /**
     * A numeric attribute ("count", "sendOffset", ...) as an expression, whether written as a number or through its
     * twin ("countExpr"); null when it is missing or could not be read.
     */
    public Expr expression(String attribute) {
        return expressions.get(attribute);
    }

    /** Whether {@code attribute} was written out rather than defaulted. */
    public boolean isExplicit(String attribute) {
        return explicit.containsKey(attribute);
    }
}
