package dev.collectives.processor.model;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;

/**
 * Where a diagnostic points: an element, and where known the annotation on it and the value in that annotation
 * (null when the attribute was left at its default, so javac points at the annotation instead).
 */
public record Site(Element element, AnnotationMirror mirror, AnnotationValue value) {
    public static Site of(Element element) {
        return new Site(element, null, null);
    }
}
