package dev.collectives.processor.model;

import java.util.List;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;

/** One {@code @Capture(param, values)} of a step; {@code param} is null when unreadable. */
public final class CaptureDecl extends Annotated {
    private final String param;
    private final List<Long> values;

    CaptureDecl(ExecutableElement step, AnnotationMirror mirror, String param, List<Long> values) {
        super(step, mirror);
        this.param = param;
        this.values = values;
    }

    public String param() {
        return param;
    }

    public List<Long> values() {
        return values;
    }
}
