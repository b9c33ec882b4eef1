package dev.collectives.runtime;

/**
 * The rules of SPEC.md. Every diagnostic and exception about a rule starts with {@link #tag()}, and
 * {@code docs/rules.md} has a section per rule under {@link #anchor()}.
 */
public enum Rule {
    R1_MIXED("R1", "MIXED"),
    R2_OFFSET("R2", "OFFSET"),
    R3_MTLS_ALLOC("R3", "MTLS-ALLOC"),
    R4_GRAPH_CAPTURE("R4", "GRAPH-CAPTURE"),
    R5_GRAPH_LIFETIME("R5", "GRAPH-LIFETIME"),
    R6_LOCAL("R6", "LOCAL"),
    R7_ARENA("R7", "ARENA"),
    R8_IB_SHARP("R8", "IB-SHARP"),
    R9_LEGACY("R9", "LEGACY"),
    R10_WINDOW_HELPERS("R10", "WINDOW-HELPERS"),
    R11_ALLOCATOR("R11", "ALLOCATOR"),
    R12_WINDOW("R12", "WINDOW"),
    R13_TYPES("R13", "TYPES"),
    R14_SHAPE("R14", "SHAPE");

    private final String id;
    private final String shortName;

    Rule(String id, String shortName) {
        this.id = id;
        this.shortName = shortName;
    }

    /** "R7" */
    public String id() {
        return id;
    }

    /** "ARENA" */
    public String shortName() {
        return shortName;
    }

    /** "[R7 ARENA]": the prefix of every message about this rule. */
    public String tag() {
        return "[" + id + " " + shortName + "]";
    }

    /** The section of docs/rules.md, e.g. "docs/rules.md#r7-arena". */
    public String anchor() {
        return "docs/rules.md#" + (id + "-" + shortName).toLowerCase(java.util.Locale.ROOT);
    }
}
