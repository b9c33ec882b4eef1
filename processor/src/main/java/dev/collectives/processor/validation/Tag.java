package dev.collectives.processor.validation;

import java.util.Locale;

import dev.collectives.runtime.Rule;

/**
 * The prefix of a diagnostic and the section of docs/rules.md explaining it: a registration rule ("[R7 ARENA]",
 * exactly {@link Rule#tag()}) or one of the DSL tags for malformed declarations ("[DSL unknown-buffer]").
 */
public record Tag(String text, String anchor) {
    public static final Tag UNKNOWN_BUFFER = dsl("unknown-buffer");
    public static final Tag ACCESSOR = dsl("accessor");
    public static final Tag STEP = dsl("step");
    public static final Tag DUPLICATE = dsl("duplicate");
    public static final Tag GRAPH_STEP = dsl("graph-step");
    /** Problems of the annotated type itself (not an interface, generic, extending another interface, ...). */
    public static final Tag PIPELINE = dsl("pipeline");

    public static Tag of(Rule rule) {
        return new Tag(rule.tag(), rule.anchor());
    }

    private static Tag dsl(String name) {
        return new Tag("[DSL " + name + "]", "docs/rules.md#dsl-" + name.toLowerCase(Locale.ROOT));
    }
}
