package dev.collectives.processor.validation;

import dev.collectives.rules.PeerPairing;
import dev.collectives.rules.Rule;
import java.util.Locale;

/**
 * The prefix of a diagnostic and the section of docs/rules.md explaining it: a registration rule ("[R7 ARENA]",
 * exactly {@link Rule#tag()}) or one of the DSL tags for malformed declarations ("[DSL unknown-buffer]").
 */
public record Tag(String text, String anchor) {
    public static final Tag UNKNOWN_BUFFER = dsl("unknown-buffer");
    public static final Tag ACCESSOR = dsl("accessor");
    /** Also the tag of the generated bind's pairing check, which shares its text. */
    public static final Tag STEP = new Tag(PeerPairing.TAG, PeerPairing.ANCHOR);

    public static final Tag DUPLICATE = dsl("duplicate");
    public static final Tag GRAPH_STEP = dsl("graph-step");
    /** Problems of the annotated type itself (not an interface, generic, extending another interface, ...). */
    public static final Tag PIPELINE = dsl("pipeline");
    /** An expression attribute that does not parse or names something unknown. */
    public static final Tag EXPRESSION = dsl("expression");
    /** A numeric attribute and its {@code ...Expr} twin: exactly one is given (offsets may give neither). */
    public static final Tag TWINS = dsl("twins");
    /** A step parameter: {@code long} or {@code int}, used by an expression. */
    public static final Tag PARAMETER = dsl("parameter");
    /** A {@code @Dim} accessor: {@code long} or {@code int}, no parameters. */
    public static final Tag DIM = dsl("dim");
    /** {@code @Capture} on a GRAPH step: each parameter once, within {@code graphCache}. */
    public static final Tag CAPTURE = dsl("capture");

    /** Every DSL tag, for the rules page. */
    public static final java.util.List<Tag> DSL = java.util.List.of(
            UNKNOWN_BUFFER,
            ACCESSOR,
            STEP,
            DUPLICATE,
            GRAPH_STEP,
            PIPELINE,
            EXPRESSION,
            TWINS,
            PARAMETER,
            DIM,
            CAPTURE);

    public static Tag of(Rule rule) {
        return new Tag(rule.tag(), rule.anchor());
    }

    private static Tag dsl(String name) {
        return new Tag("[DSL " + name + "]", "docs/rules.md#dsl-" + name.toLowerCase(Locale.ROOT));
    }
}
