package dev.collectives.runtime.internal;

import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import java.nio.charset.StandardCharsets;

/**
 * A failure that one rank met in bind, framed for the other ranks of the {@link Agreement} as "rule\nresult\nmessage"
 * and read back there as the same rule or result, naming the rank that failed.
 */
final class ReportedFailure {
    private ReportedFailure() {}

    /** What the other ranks need to fail alike. */
    static byte[] encode(Throwable failure) {
        CollectivesException known = failure instanceof CollectivesException ? (CollectivesException) failure : null;
        String rule = known == null || known.rule() == null ? "" : known.rule().name();
        String result =
                known == null || known.result() == null ? "" : known.result().name();
        String message = known != null ? failure.getMessage() : failure.toString();
        return (rule + "\n" + result + "\n" + message).getBytes(StandardCharsets.UTF_8);
    }

    /** On {@code myRank}, the failure {@code failedRank} encoded in {@code text} (padded with zero bytes). */
    static CollectivesException decode(byte[] text, int myRank, int failedRank) {
        String[] parts =
                new String(text, StandardCharsets.UTF_8).replace("\0", "").split("\n", 3);
        Rule rule = parts.length > 0 && !parts[0].isEmpty() ? Rule.valueOf(parts[0]) : null;
        Result result = parts.length > 1 && !parts[1].isEmpty() ? Result.valueOf(parts[1]) : null;
        String message = parts.length > 2 ? parts[2] : "";
        if (rule != null && message.startsWith(rule.tag() + " ")) {
            message = message.substring(rule.tag().length() + 1);
        }
        return CollectivesException.reported(
                rule, result, myRank, "rank " + failedRank + " could not bind: " + message);
    }
}
