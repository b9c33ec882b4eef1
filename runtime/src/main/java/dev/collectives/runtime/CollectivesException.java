package dev.collectives.runtime;

import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;

import java.util.ArrayList;
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
        return new CollectivesException(rule, null, rank, rule.tag() + " " + rankPrefix(rank) + message
                + " (see " + rule.anchor() + ")", null);
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
        return new CollectivesException(null, result, rank, "[" + result + " " + result.code() + "] "
                + rankPrefix(rank) + call + " failed" + (detail == null || detail.isEmpty() ? "" : ": " + detail),
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
        return new CollectivesException(null, Result.INVALID_USAGE, rank, tag + " " + message + " (see " + anchor
                + ")", null);
    }

    /**
     * On {@code rank}, a failure that another rank met and reported to this one in a collective agreement (bind's
     * fingerprint exchange); it carries that failure's rule or result, and its message says which rank.
     */
    public static CollectivesException reported(Rule rule, Result result, int rank, String message) {
        return new CollectivesException(rule, result, rank, (rule == null ? "" : rule.tag() + " ")
                + rankPrefix(rank) + message, null);
    }

    /** A failure in rank {@code rank} of a run, wrapping what that rank threw: {@code rank N failed: <summary>}. */
    public static CollectivesException rankFailed(int rank, Throwable cause) {
        return ranksFailed(List.of(Map.entry(rank, cause)));
    }

    /**
     * The failures of a run's ranks, in the order they happened, as one exception: its message has a line per
     * rank, in rank order, with the rank, the tag and the first line of what it threw, and under it that failure's
     * causes, one line each, a few at most (full traces are for a log at DEBUG). It carries the first failure's
     * rule, result and rank, the first failure as its cause and the others suppressed.
     */
    public static CollectivesException ranksFailed(List<Map.Entry<Integer, Throwable>> inOrder) {
        Map.Entry<Integer, Throwable> first = inOrder.get(0);
        Throwable cause = first.getValue();
        CollectivesException known = cause instanceof CollectivesException ? (CollectivesException) cause : null;
        StringBuilder message = new StringBuilder();
        if (inOrder.size() == 1) {
            message.append("rank ").append(first.getKey()).append(" failed: ");
            summarize(message, first.getKey(), cause);
        } else {
            List<Map.Entry<Integer, Throwable>> byRank = new ArrayList<>(inOrder);
            byRank.sort(Map.Entry.comparingByKey());
            message.append(byRank.stream().map(f -> String.valueOf(f.getKey()))
                            .collect(Collectors.joining(", ", "ranks ", " failed")))
                    .append(" (rank ").append(first.getKey()).append(" first):");
            for (Map.Entry<Integer, Throwable> failure : byRank) {
                message.append("\nrank ").append(failure.getKey()).append(": ");
                summarize(message, failure.getKey(), failure.getValue());
            }
        }
        CollectivesException combined = new CollectivesException(known == null ? null : known.rule(),
                known == null ? null : known.result(), first.getKey(), message.toString(), cause);
        inOrder.stream().skip(1).forEach(f -> combined.addSuppressed(f.getValue()));
        return combined;
    }

    /** The first line of what {@code rank} threw, without its own "rank N: ", then its causes' first lines. */
    private static void summarize(StringBuilder message, int rank, Throwable failure) {
        String line = firstLine(failure);
        message.append(line.replaceFirst("^((?:\\[[^\\]]*\\] )?)rank " + rank + ": ", "$1"));
        Throwable cause = failure.getCause();
        for (int i = 0; i < MAX_CAUSES && cause != null; i++, cause = cause.getCause()) {
            String text = firstLine(cause);
            if (!line.contains(text)) { // wrappers often repeat their cause's message
                message.append("\n  caused by: ").append(text);
            }
        }
    }

    /** A failure's message's first line; the class name before it unless it is a {@link CollectivesException}. */
    private static String firstLine(Throwable failure) {
        String text = failure instanceof CollectivesException ? String.valueOf(failure.getMessage())
                : failure.toString();
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
