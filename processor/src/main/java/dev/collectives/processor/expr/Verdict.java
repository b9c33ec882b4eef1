package dev.collectives.processor.expr;

/** What the processor can say of a condition for all values of its dims and parameters. */
public enum Verdict {
    /** It holds for every value: no check is generated. */
    TRUE,
    /** It holds for no value: a compile error. */
    FALSE,
    /** It depends on the values: a check is generated, at bind (dims) or at each call (parameters). */
    UNKNOWN
}
