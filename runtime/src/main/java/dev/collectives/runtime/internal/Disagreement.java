package dev.collectives.runtime.internal;

import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The report of ranks whose fingerprints differ: the first entry where some rank's description differs from rank
 * 0's, the rule a difference there breaks, and each rank's value. The same on every rank.
 */
final class Disagreement {
    private Disagreement() {}

    /** The exception for the gathered descriptions ({@link Fingerprint#text()}, one per rank, zero-padded). */
    static CollectivesException of(byte[][] texts, int myRank) {
        List<String[]> lines = new ArrayList<>();
        for (byte[] t : texts) {
            lines.add(new String(t, StandardCharsets.UTF_8).replace("\0", "").split("\n", -1));
        }
        int longest = lines.stream().mapToInt(l -> l.length).max().orElse(0);
        for (int i = 0; i < longest; i++) {
            String first = line(lines.get(0), i);
            for (int r = 1; r < lines.size(); r++) {
                if (!line(lines.get(r), i).equals(first)) {
                    return describe(lines, i);
                }
            }
        }
        return CollectivesException.violation(Message.R14_DIFFERENT_BEYOND, myRank, Agreement.DETAIL_BYTES);
    }

    private static CollectivesException describe(List<String[]> lines, int index) {
        String key = keyOf(line(lines.get(0), index));
        for (String[] l : lines) {
            if (!keyOf(line(l, index)).equals(key)) {
                key = "entry " + index;
                break;
            }
        }
        Rule rule = ruleOf(valueOf(line(lines.get(0), index)));
        StringBuilder values = new StringBuilder();
        for (int r = 0; r < lines.size(); r++) {
            values.append(r == 0 ? "" : "; ")
                    .append("rank ")
                    .append(r)
                    .append(": ")
                    .append(shown(rule, valueOf(line(lines.get(r), index))));
        }
        String pipeline = valueOf(line(lines.get(0), 0));
        switch (rule) {
            case R1_MIXED:
                return CollectivesException.violation(Message.R1_REGISTERED_DIFFERENTLY, -1, pipeline, key, values);
            case R2_OFFSET:
                return CollectivesException.violation(Message.R2_BOUND_AT_OTHER_OFFSETS, -1, pipeline, key, values);
            case R12_WINDOW:
                return CollectivesException.violation(Message.R12_WINDOWS_DIFFERENTLY, -1, pipeline, key, values);
            default:
                return CollectivesException.violation(
                        Message.R14_DIFFERENT_PIPELINES,
                        -1,
                        index == 0 ? "" : " (" + pipeline + " in different shapes)",
                        key,
                        values);
        }
    }

    /** A rank's value as the message shows it: without the tag the message starts with; R2's in bytes. */
    private static String shown(Rule rule, String value) {
        String bare =
                value.startsWith(rule.tag() + " ") ? value.substring(rule.tag().length() + 1) : value;
        return rule == Rule.R2_OFFSET && bare.matches("\\d+") ? bare + " bytes from its allocation's head" : bare;
    }

    private static String line(String[] lines, int i) {
        return i < lines.length ? lines[i] : "<missing>";
    }

    private static String keyOf(String line) {
        int eq = line.indexOf(" = ");
        return eq < 0 ? line : line.substring(0, eq);
    }

    private static String valueOf(String line) {
        int eq = line.indexOf(" = ");
        return eq < 0 ? line : line.substring(eq + 3);
    }

    private static Rule ruleOf(String value) {
        for (Rule r : Rule.values()) {
            if (value.startsWith(r.tag())) {
                return r;
            }
        }
        return Rule.R14_SHAPE;
    }
}
