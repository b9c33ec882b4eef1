package dev.collectives.backend.sim;

import dev.collectives.rules.Message;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import java.util.List;

/**
 * A failure decided once for every participant of a rendezvous: a rule violation, or a library-style error (a
 * timeout, an abort). Each rank gets its own exception with the same message.
 */
record CallVerdict(Rule rule, Result result, String call, String message) {
    /** A violation in the catalogue's words, with {@code arguments} in place. */
    static CallVerdict violation(Message message, Object... arguments) {
        return new CallVerdict(message.rule(), null, null, message.format(arguments));
    }

    static CallVerdict error(Result result, String call, String message) {
        return new CallVerdict(null, result, call, message);
    }

    /** The call {@code what} was given up: {@code missing} had not arrived within the timeout. */
    static CallVerdict timedOut(String what, List<Integer> missing, List<Integer> arrived, String timeoutText) {
        return error(
                Result.REMOTE_ERROR,
                what,
                "ranks " + missing + " did not arrive within " + timeoutText + " (ranks " + arrived + " did)");
    }

    /** A rank arrived at {@code what} after the others had given it up for {@code reason}. */
    static CallVerdict lateArrival(String what, String reason) {
        return error(Result.REMOTE_ERROR, what, "arrived after the other ranks gave up: " + reason);
    }

    CollectivesException toException(int rank) {
        return toException(rank, call);
    }

    /**
     * As {@link #toException(int)}, naming the call as rank {@code rank} knows it ({@code callName}): the ranks share
     * the verdict, but each names a call by its own flight-recorder entry.
     */
    CollectivesException toException(int rank, String callName) {
        return rule != null
                ? CollectivesException.violation(rule, rank, message)
                : CollectivesException.library(result, rank, callName, message);
    }
}
