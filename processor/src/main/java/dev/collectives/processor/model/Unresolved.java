package dev.collectives.processor.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * A type a pipeline names that javac cannot resolve yet: another annotation processor may generate it in this
 * round, so the pipeline waits for a later round, and what is still missing in the last one is reported.
 */
public record Unresolved(Site site, String attribute, String written) {
    /** What to call the missing type in a message: its name where javac kept it. */
    public String describe() {
        return written == null ? "the class named by " + attribute : "type `" + written + "`";
    }

    /** Unresolved return and parameter types of the pipeline's methods and class literals in their annotations. */
    public static List<Unresolved> in(TypeElement pipeline) {
        List<Unresolved> found = new ArrayList<>();
        for (Element member : pipeline.getEnclosedElements()) {
            if (member.getKind() != ElementKind.METHOD) {
                continue;
            }
            ExecutableElement method = (ExecutableElement) member;
            if (method.getReturnType().getKind() == TypeKind.ERROR) {
                found.add(new Unresolved(
                        Site.of(method), null, method.getReturnType().toString()));
            }
            for (VariableElement p : method.getParameters()) {
                if (p.asType().getKind() == TypeKind.ERROR) {
                    found.add(new Unresolved(Site.of(method), null, p.asType().toString()));
                }
            }
            for (AnnotationMirror m : method.getAnnotationMirrors()) {
                classLiterals(method, m, found);
            }
        }
        return found;
    }

    private static void classLiterals(ExecutableElement method, AnnotationMirror mirror, List<Unresolved> found) {
        for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e :
                mirror.getElementValues().entrySet()) {
            for (AnnotationValue v : Mirrors.list(e.getValue())) {
                // asked once, not three times: this runs for every value of every annotation
                Object value = v.getValue();
                if (value instanceof TypeMirror t && t.getKind() == TypeKind.ERROR) {
                    found.add(new Unresolved(new Site(method, mirror, v), attributeName(e.getKey()), t.toString()));
                } else if (Mirrors.isErrorMarker(v)
                        && e.getKey().getReturnType().toString().startsWith("java.lang.Class")) {
                    found.add(new Unresolved(new Site(method, mirror, v), attributeName(e.getKey()), null));
                } else if (value instanceof AnnotationMirror inner) {
                    classLiterals(method, inner, found);
                }
            }
        }
    }

    private static String attributeName(ExecutableElement attribute) {
        return attribute.getSimpleName().toString();
    }
}
