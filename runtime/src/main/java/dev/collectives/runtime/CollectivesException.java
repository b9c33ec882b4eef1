package dev.collectives.runtime;

import dev.collectives.rules.Rule;

/**
 * Every failure of the runtime and the backends. It carries the rule it enforces ({@link #rule()}, the message
 * then starts with the rule's tag), or the library's result code ({@link #result()}), and the rank it happened
 * on, when known.
 */
public class CollectivesException extends RuntimeException {
    private static final long serialVersionUID = 1L;

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

    /** A failure in rank {@code rank} of a local run, wrapping what that rank threw. */
    public static CollectivesException rankFailed(int rank, Throwable cause) {
        Rule rule = cause instanceof CollectivesException ? ((CollectivesException) cause).rule() : null;
        Result result = cause instanceof CollectivesException ? ((CollectivesException) cause).result() : null;
        return new CollectivesException(rule, result, rank, "rank " + rank + " failed: " + cause, cause);
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
