package dev.collectives.processor.model;

import java.util.Map;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;

/** Something read from one annotation: keeps the mirror and its explicit values, so diagnostics can point at them. */
public abstract class Annotated {
    private final Element element;
    private final AnnotationMirror mirror;
    private final Map<String, AnnotationValue> explicit;

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

    /** The value of {@code attribute} as written, or the annotation when it was left at its default. */
    public Site site(String attribute) {
        return new Site(element, mirror, explicit.get(attribute));
    }

    /** Whether {@code attribute} was written out rather than defaulted. */
    public boolean isExplicit(String attribute) {
        return explicit.containsKey(attribute);
    }
}
