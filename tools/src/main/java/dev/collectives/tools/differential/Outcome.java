package dev.collectives.tools.differential;

import dev.collectives.examples.Runner;
import dev.collectives.runtime.CollectivesException;
import java.util.List;

/**
 * What one rank got from one item of work: it ran, with what it read back; it was skipped, and why; or it failed,
 * with the tag that says how (a rule's, a library result's, or "wrong result" for an example whose own check failed).
 *
 * @param kind    which of the three
 * @param tag     for a failure, what is compared across backends: "[R2 OFFSET]", "[INVALID_USAGE 5]"
 * @param detail  the skip's reason, or the failure's message
 * @param outputs what a run read back
 */
record Outcome(Kind kind, String tag, String detail, List<Output> outputs) {
    /** The tag of an example whose results were wrong on the rank itself. */
    static final String WRONG_RESULT = "wrong result";

    Outcome {
        outputs = List.copyOf(outputs);
    }

    enum Kind {
        RAN,
        SKIPPED,
        FAILED
    }

    static Outcome ran(List<Output> outputs) {
        return new Outcome(Kind.RAN, "", "", outputs);
    }

    static Outcome skipped(String why) {
        return new Outcome(Kind.SKIPPED, "", why, List.of());
    }

    static Outcome failed(Throwable e) {
        return new Outcome(Kind.FAILED, tagOf(e), Runner.failure(e), List.of());
    }

    static Outcome wrong(String check) {
        return new Outcome(Kind.FAILED, WRONG_RESULT, check, List.of());
    }

    /** "ran", "skipped" or the failure's tag: what two backends must agree on before their outputs are compared. */
    String verdict() {
        return switch (kind) {
            case RAN -> "ran";
            case SKIPPED -> "skipped";
            case FAILED -> tag;
        };
    }

    /** The rule's tag; else the tag the message starts with (a DSL tag, a library result); else the result. */
    static String tagOf(Throwable e) {
        if (e instanceof CollectivesException c) {
            String message = c.getMessage() == null ? "" : c.getMessage();
            if (c.rule() != null) {
                return c.rule().tag();
            }
            if (message.startsWith("[") && message.indexOf(']') > 0) {
                return message.substring(0, message.indexOf(']') + 1);
            }
            if (c.result() != null) {
                return "[" + c.result() + "]";
            }
        }
        return e.getClass().getSimpleName();
    }
}
