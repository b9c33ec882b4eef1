package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameRules;

/**
 * All a job's server knows of one rank, or of one process waiting to join at the next growth: its connection, where
 * its claim came from, its fate and why, the message it sent for the operation not yet served, which deaths it has
 * heard of, and why it was excluded. A replacement of a rank that died gets a fresh slot, so nothing of its
 * predecessor's (its exclusion above all) sticks to it. Owned by the server's loop thread.
 */
final class Slot {
    /** Where a rank stands with the job. */
    enum Fate {
        /** A member of the job. */
        ALIVE,
        /** It closed its rendezvous: its connection ending is no failure. */
        LEFT,
        /** Its process died (its connection ended) once the job formed. */
        DEAD,
        /** It was declared dead and excluded: silent past the heartbeat timeout, or it broke the protocol. */
        FENCED,
        /** The replacement of a rank that died, admitted, waiting for the survivors to take it in. */
        REPLACING,
        /** A process that joins the job at its next growth, admitted, waiting to be taken in. */
        JOINING_BY_GROWTH
    }

    final int rank;
    /** Where its admitted connection came from, from the moment its claim was checked. */
    final String claimedFrom;

    Fate fate;
    /** Its connection. */
    final ServerConnection connection;

    /** Why it is gone (dead, fenced, or no longer waiting to join), for the operations that miss it. */
    Cause why;
    /** Why it was excluded from the job, which its process hears if it wakes and asks; null if it was not. */
    String exclusion;
    /** Its message for the operation not yet served; null when none waits. */
    Channel.Frame inbox;
    /** Whether it watches its job: a death is news to it at once. */
    boolean watching;
    /** How many of the job's deaths it has heard of. */
    int heard;

    Slot(int rank, String claimedFrom, Fate fate, ServerConnection connection) {
        this.rank = rank;
        this.claimedFrom = claimedFrom;
        this.fate = fate;
        this.connection = connection;
    }

    /** Whether its process died or was fenced, and no replacement has been admitted yet. */
    boolean gone() {
        return fate == Fate.DEAD || fate == Fate.FENCED;
    }

    /** Whether its message for the operation under way may still come: it is neither there nor gone. */
    boolean awaited() {
        return inbox == null && fate != Fate.LEFT && why == null;
    }

    /** Where its connection is, for which messages are legal from it. */
    FrameRules.Phase phase() {
        return fate == Fate.REPLACING
                ? FrameRules.Phase.REPLACEMENT_WAITING
                : fate == Fate.JOINING_BY_GROWTH ? FrameRules.Phase.JOINER_WAITING : FrameRules.Phase.MEMBER;
    }

    @Override
    public String toString() {
        return "rank " + rank + " (" + fate + ")";
    }
}
