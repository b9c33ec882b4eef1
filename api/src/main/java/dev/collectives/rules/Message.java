package dev.collectives.rules;

import java.util.Locale;
import java.util.Objects;

/**
 * The catalogue of messages about the rules. Each text is written here once and used wherever its rule is checked:
 * by the annotation processor at compile time, by the generated {@code bind} and by the runtime on each call, so a
 * mistake reads the same whenever it is caught. A message is what comes between the rule's {@link Rule#tag() tag}
 * and the pointer to its section of the rules page; its arguments fill the {@code %s} in order, and are numbers at
 * bind and call time, numbers or expressions (such as {@code 4 * n}) at compile time.
 */
public enum Message {
    /**
     * An op's send and recv ranges of one allocation overlap without starting at the same byte. Arguments: the op,
     * then the send range's first byte and end, then the recv range's.
     */
    R7_IN_PLACE_OR_APART(Rule.R7_ARENA, "%s: send bytes [%s, %s) and recv bytes [%s, %s) overlap without coinciding;"
            + " start them at the same byte (in place) or move them apart"),
    /**
     * An op that has no in-place form at the same offsets on every rank (allgather, reducescatter, alltoall) has
     * overlapping send and recv ranges. Arguments as {@link #R7_IN_PLACE_OR_APART}.
     */
    R7_NOT_IN_PLACE(Rule.R7_ARENA, "%s: send bytes [%s, %s) and recv bytes [%s, %s) overlap, and this op cannot run in"
            + " place at the same offsets on every rank; give send and recv separate ranges"),
    /**
     * Two ops of one group use overlapping ranges of one allocation, one of them receiving into it. Arguments: the
     * first side ("the send of @AllReduce #0"), the second side, then each side's first byte and end.
     */
    R7_GROUP_APART(Rule.R7_ARENA, "%s and %s use bytes [%s, %s) and [%s, %s), which overlap; the ops of a group run"
            + " concurrently, so give each its own range"),
    /**
     * An op's side reaches past the end of its buffer. Arguments: the side ("the recv of @AllGather #0 in gather()"),
     * the buffer, the first element and the end of the range, and how many elements the buffer holds.
     */
    R7_PAST_BUFFER(Rule.R7_ARENA, "%s reaches past `%s`: elements [%s, %s), but it holds %s; shorten the op or"
            + " enlarge the buffer"),
    /**
     * An op's side starts before the head of its buffer. Arguments: the side ("the send of @AllReduce #0 in step()"),
     * its offset in elements, the buffer.
     */
    R7_NEGATIVE_OFFSET(Rule.R7_ARENA, "%s: offset %s into `%s` is negative; offsets are at least 0"),
    /** A view starts before the head of what it is a view of. Arguments: the view, its offsetBytes, its {@code of}. */
    R7_VIEW_BEFORE_HEAD(Rule.R7_ARENA, "view `%s` starts at byte %s, before the head of `%s`; offsets are at least 0"),
    /**
     * A view reaches past the end of the buffer or view it is of. Arguments: the view, its {@code of}, the view's
     * first byte and end in it, and how many bytes it holds.
     */
    R7_VIEW_PAST_END(Rule.R7_ARENA, "view `%s` reaches past the end of `%s`: bytes [%s, %s), but it holds %s bytes;"
            + " a view lies inside the buffer or view it is of"),
    /**
     * A view starts in its allocation at a byte that is not a multiple of its element size. Arguments: the view, the
     * byte, its type, the type's size, then the size again.
     */
    R7_VIEW_MISALIGNED(Rule.R7_ARENA, "view `%s` starts at byte %s of its allocation, not a multiple of the %s element"
            + " size %s; align offsetBytes to %s"),
    /**
     * A size or offset given by an expression breaks the rule whatever the dims and step arguments are. Argument: the
     * condition ({@code "step(): @AllReduce #0: count is at least 1: 1 <= n - n"}).
     */
    R13_HOLDS_FOR_NO_VALUE(Rule.R13_TYPES, "%s holds for no value of the dims (at least 1) and parameters (at least"
            + " 0)");

    private final Rule rule;
    private final String template;
    private final int arguments;

    Message(Rule rule, String template) {
        this.rule = rule;
        this.template = template;
        this.arguments = placeholders(template);
    }

    /** The rule it is about: its tag starts the message wherever it is reported. */
    public Rule rule() {
        return rule;
    }

    /** The text with {@code arguments} in place of the {@code %s}, without tag or pointer. */
    public String format(Object... arguments) {
        Objects.requireNonNull(arguments, "arguments");
        if (arguments.length != this.arguments) {
            throw new IllegalArgumentException(name() + " takes " + this.arguments + " arguments, not "
                    + arguments.length);
        }
        return String.format(Locale.ROOT, template, arguments);
    }

    // a loop, not a static Pattern: the constants are made before the enum's static fields
    private static int placeholders(String template) {
        int count = 0;
        for (int i = template.indexOf('%'); i >= 0; i = template.indexOf('%', i + 2)) {
            if (i + 1 == template.length() || template.charAt(i + 1) != 's') {
                throw new IllegalArgumentException("only %s placeholders: " + template);
            }
            count++;
        }
        return count;
    }
}
