package dev.collectives.runtime;

import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Every failure of the runtime and the backends. It carries the rule it enforces ({@link #rule()}, the message
 * then starts with the rule's tag), or the library's result code ({@link #result()}), and the rank it happened
 * on, when known.
 */
public class CollectivesException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** How many causes under a rank's line its summary names. */
    private static final int MAX_CAUSES = 2;

    /** The rule broken, or null. */
    private final Rule rule;
    /** The library's result code, or null. */
    private final Result result;
    /** The rank it happened on; -1 when not known. */
    private final int rank;

    /**
     * For backends: a failure about {@code rule} or with the library's {@code result} (either may be null) on
     * {@code rank} (-1: not known).
     */
    protected CollectivesException(Rule rule, Result result, int rank, String message, Throwable cause) {
        super(message, cause);
        this.rule = rule;
        this.result = result;
        this.rank = rank;
    }

    /** A violation of {@code rule}, seen on {@code rank} (-1: not rank-specific). */
    public static CollectivesException violation(Rule rule, int rank, String message) {
        return new CollectivesException(
                rule, null, rank, rule.tag() + " " + rankPrefix(rank) + message + " (see " + rule.anchor() + ")", null);
    }

    /**
     * A violation of {@code message}'s rule, seen on {@code rank} (-1: not rank-specific), in the catalogue's words
     * with {@code arguments} in place.
     */
    public static CollectivesException violation(Message message, int rank, Object... arguments) {
        return violation(message.rule(), rank, message.format(arguments));
    }

    /** A library call that returned {@code result}. */
    public static CollectivesException library(Result result, int rank, String call, String detail) {
        return new CollectivesException(
                null,
                result,
                rank,
                "[" + result + " " + result.code() + "] " + rankPrefix(rank) + call + " failed"
                        + (detail == null || detail.isEmpty() ? "" : ": " + detail),
                null);
    }

    /** Misuse of the runtime API that no rule covers (closed objects, bad arguments). */
    public static CollectivesException usage(int rank, String message) {
        return new CollectivesException(null, Result.INVALID_USAGE, rank, rankPrefix(rank) + message, null);
    }

    /**
     * A declaration the pipeline's DSL cannot serve, found at bind because only the communicator tells (such as
     * steps whose sends and receives do not pair up at its size): {@code tag} is the DSL tag the processor reports it
     * with ("[DSL step]"). The message names no rank, as every rank finds the same.
     */
    public static CollectivesException declaration(String tag, String anchor, int rank, String message) {
        return new CollectivesException(
                null, Result.INVALID_USAGE, rank, tag + " " + message + " (see " + anchor + ")", null);
    }

    /**
     * On {@code rank}, a failure that another rank met and reported to this one in a collective agreement (bind's
     * fingerprint exchange); it carries that failure's rule or result, and its message says which rank.
     */
    public static CollectivesException reported(Rule rule, Result result, int rank, String message) {
        return new CollectivesException(
                rule, result, rank, (rule == null ? "" : rule.tag() + " ") + rankPrefix(rank) + message, null);
    }

    /** A failure in rank {@code rank} of a run, wrapping what that rank threw: {@code rank N failed: <summary>}. */
    public static CollectivesException rankFailed(int rank, Throwable cause) {
        return ranksFailed(List.of(Map.entry(rank, cause)));
    }

    /**
     * The failures of a run's ranks, in the order they happened, as one exception. Ranks that failed for the same
     * reason share one line ("ranks 0-3 failed: [R2 OFFSET] ..."): the tag and the first line of what they threw,
     * without their "rank N: ", then that failure's causes, one line each, a few at most; each different reason has
     * a line of its own, the first failure's first. A last line names the first frame of the caller's code where the
     * first failure was thrown. It carries the first failure's rule, result and rank and the first failure as its
     * cause; of each other reason one failure is suppressed, not every copy (full traces are for a log at DEBUG).
     * Its own trace starts at the caller's frame that ran the ranks, not inside this library.
     */
    public static CollectivesException ranksFailed(List<Map.Entry<Integer, Throwable>> inOrder) {
        Map.Entry<Integer, Throwable> first = inOrder.get(0);
        Throwable cause = first.getValue();
        CollectivesException known = cause instanceof CollectivesException ? (CollectivesException) cause : null;
        Map<String, List<Map.Entry<Integer, Throwable>>> byReason = new LinkedHashMap<>();
        for (Map.Entry<Integer, Throwable> failure : inOrder) {
            byReason.computeIfAbsent(summary(failure.getKey(), failure.getValue()), k -> new ArrayList<>())
                    .add(failure);
        }
        StringBuilder message = new StringBuilder(ranks(inOrder)).append(" failed");
        if (byReason.size() == 1) {
            message.append(": ").append(byReason.keySet().iterator().next());
        } else {
            message.append(" (rank ").append(first.getKey()).append(" first):");
            byReason.forEach((reason, failures) ->
                    message.append("\n").append(ranks(failures)).append(": ").append(reason));
        }
        CallerFrames.firstOutside(cause)
                .ifPresent(frame -> message.append("\n  thrown in ").append(frame));
        CollectivesException combined = new CollectivesException(
                known == null ? null : known.rule(),
                known == null ? null : known.result(),
                first.getKey(),
                message.toString(),
                cause);
        combined.setStackTrace(CallerFrames.fromCaller(combined.getStackTrace()));
        byReason.values().stream()
                .skip(1)
                .forEach(failures -> combined.addSuppressed(failures.get(0).getValue()));
        return combined;
    }

    /** "rank 2", "ranks 0-3", "ranks 0, 2, 3": the ranks of {@code failures}, in rank order. */
    private static String ranks(List<Map.Entry<Integer, Throwable>> failures) {
        int[] sorted = failures.stream()
                .mapToInt(Map.Entry::getKey)
                .sorted()
                .distinct()
                .toArray();
        if (sorted.length == 1) {
            return "rank " + sorted[0];
        }
        boolean consecutive = sorted[sorted.length - 1] - sorted[0] == sorted.length - 1;
        return "ranks "
                + (consecutive && sorted.length > 2
                        ? sorted[0] + "-" + sorted[sorted.length - 1]
                        : Arrays.stream(sorted).mapToObj(String::valueOf).collect(Collectors.joining(", ")));
    }

    /** The first line of what {@code rank} threw, without its own "rank N: ", then its causes' first lines. */
    private static String summary(int rank, Throwable failure) {
        String line = firstLine(failure);
        StringBuilder summary = new StringBuilder(line.replaceFirst("^((?:\\[[^\\]]*\\] )?)rank " + rank + ": ", "$1"));
        Throwable cause = failure.getCause();
        for (int i = 0; i < MAX_CAUSES && cause != null; i++, cause = cause.getCause()) {
            String text = firstLine(cause);
            if (!line.contains(text)) { // wrappers often repeat their cause's message
                summary.append("\n  caused by: ").append(text);
            }
        }
        return summary.toString();
    }

    /** A failure's message's first line; the class name before it unless it is a {@link CollectivesException}. */
    private static String firstLine(Throwable failure) {
        String text =
                failure instanceof CollectivesException ? String.valueOf(failure.getMessage()) : failure.toString();
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }

    private static String rankPrefix(int rank) {
        return rank >= 0 ? "rank " + rank + ": " : "";
    }

    /** The rule this reports, or null. */
    public Rule rule() {
        return rule;
    }

    /** The library result code, or null. */
    public Result result() {
        return result;
    }

    /** The rank this happened on, or -1. */
    public int rank() {
        return rank;
    }
}
