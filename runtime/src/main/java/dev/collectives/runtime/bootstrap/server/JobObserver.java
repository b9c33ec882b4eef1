package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Progress;

/**
 * What a job's server tells whoever watches the job from outside it (its live page, its metrics): each event as it
 * happens, with the server's clock ({@link System#nanoTime()}). The server calls it from whichever thread met the
 * event, possibly with its own lock held: an observer records and returns, never blocks, never calls the server
 * back. Every method does nothing unless overridden.
 */
public interface JobObserver {
    /** An observer that ignores every event. */
    JobObserver NONE = new JobObserver() {};

    /** How a rank came into the job. */
    enum Arrival {
        /** One of the ranks the job was launched with. */
        LAUNCHED,
        /** A process that took a dead rank's place. */
        REPLACEMENT,
        /** A process that waits to join at the job's next growth. */
        JOINER
    }

    /** How a rank left the job. */
    enum Fate {
        /** Its connection ended without its leaving: its process died. */
        DIED,
        /** The server excluded it: silent past the heartbeat timeout, or it sent what a member may not. */
        FENCED,
        /** It closed its rendezvous. */
        LEFT
    }

    /** The job's size changed (it formed with {@code size} ranks, or grew to them). */
    default void size(int size, long nanos) {}

    /** Rank {@code rank}, connected from {@code host}, was admitted. */
    default void joined(int rank, String host, Arrival arrival, long nanos) {}

    /** Rank {@code rank} beat, saying where it stands ({@link Progress#NONE} where it says nothing). */
    default void beat(int rank, Progress progress, long nanos) {}

    /** Rank {@code rank} is gone, {@code why}. */
    default void gone(int rank, Fate fate, String why, long nanos) {}

    /** The server began serving {@code operation} ("allgather #2", "reunion #3", "growth #4"). */
    default void operationStarted(String operation, long nanos) {}

    /** The server answered {@code operation}: the ranks that took part go on. */
    default void operationAnswered(String operation, long nanos) {}

    /** A claim was turned away, {@code why}: a stray or misconfigured process, the job goes on. */
    default void refused(String why, long nanos) {}

    /** The job ended for {@code reason}. */
    default void ended(String reason, long nanos) {}
}
