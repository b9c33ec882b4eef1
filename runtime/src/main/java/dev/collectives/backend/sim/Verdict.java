package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Rule;

/**
 * A failure decided once for every participant of a rendezvous: a rule violation, or a library-style error (a
 * timeout, an abort). Each rank gets its own exception with the same message.
 */
record Verdict(Rule rule, Result result, String call, String message) {
    static Verdict violation(Rule rule, String message) {
        return new Verdict(rule, null, null, message);
    }

    static Verdict error(Result result, String call, String message) {
        return new Verdict(null, result, call, message);
    }

    CollectivesException toException(int rank) {
        return rule != null ? CollectivesException.violation(rule, rank, message)
                : CollectivesException.library(result, rank, call, message);
    }
}
