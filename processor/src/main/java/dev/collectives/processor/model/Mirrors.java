package dev.collectives.processor.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;

/**
 * Reads annotation values defensively: source with errors yields values of unexpected kinds (javac's error
 * attributes, missing elements), which come back as null instead of throwing.
 */
public final class Mirrors {
    private Mirrors() {}

    public static String qualifiedName(AnnotationMirror mirror) {
        return mirror.getAnnotationType().asElement() instanceof TypeElement type
                ? type.getQualifiedName().toString()
                : "";
    }

    public static Map<String, AnnotationValue> explicitValues(AnnotationMirror mirror) {
        return byName(mirror.getElementValues());
    }

    public static Map<String, AnnotationValue> valuesWithDefaults(Elements elements, AnnotationMirror mirror) {
        return byName(elements.getElementValuesWithDefaults(mirror));
    }

    private static Map<String, AnnotationValue> byName(
            Map<? extends ExecutableElement, ? extends AnnotationValue> values) {
        Map<String, AnnotationValue> named = new LinkedHashMap<>();
        values.forEach((k, v) -> named.put(k.getSimpleName().toString(), v));
        return named;
    }

    public static String string(AnnotationValue value) {
        return value != null && value.getValue() instanceof String s && !isErrorMarker(value) ? s : null;
    }

    public static Long longValue(AnnotationValue value) {
        return value != null && value.getValue() instanceof Number n ? n.longValue() : null;
    }

    public static Integer intValue(AnnotationValue value) {
        return value != null && value.getValue() instanceof Number n ? n.intValue() : null;
    }

    public static Boolean bool(AnnotationValue value) {
        return value != null && value.getValue() instanceof Boolean b ? b : null;
    }

    public static TypeMirror type(AnnotationValue value) {
        return value != null && value.getValue() instanceof TypeMirror t ? t : null;
    }

    /** The constant of {@code type} named by an enum-valued attribute, or null. */
    public static <E extends Enum<E>> E enumValue(AnnotationValue value, Class<E> type) {
        if (value == null || !(value.getValue() instanceof VariableElement constant)) {
            return null;
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().contentEquals(constant.getSimpleName())) {
                return e;
            }
        }
        return null;
    }

    /** The elements of an array-valued attribute (a single value written without braces counts as one). */
    public static List<AnnotationValue> list(AnnotationValue value) {
        List<AnnotationValue> items = new ArrayList<>();
        if (value == null) {
            return items;
        }
        if (value.getValue() instanceof List<?> raw) {
            for (Object o : raw) {
                if (o instanceof AnnotationValue v) {
                    items.add(v);
                }
            }
        } else {
            items.add(value);
        }
        return items;
    }

    public static AnnotationMirror annotation(AnnotationValue value) {
        return value != null && value.getValue() instanceof AnnotationMirror m ? m : null;
    }

    /** javac reports unresolvable expressions as the string "<error>". */
    static boolean isErrorMarker(AnnotationValue value) {
        return "<error>".equals(value.getValue()) && value.toString().equals("<error>");
    }
}
