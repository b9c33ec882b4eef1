package dev.collectives.runtime.bootstrap.wire;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Progress;
import java.util.EnumSet;
import java.util.Set;

/**
 * The types of message a member and the job's server exchange once admitted: each one's byte on the wire, the bound
 * on its length (checked before anything is allocated), and the phases of a connection where it is legal, which say
 * its directions ({@link FrameRules.Phase#toServer}). {@link Channel}'s grammar says what each one's bytes are. The
 * wire bytes 1 to 17 are taken; a new type takes the next free one.
 */
public enum FrameType {
    /** A member's value for an allgather; the server's answer to any operation. */
    DATA(1, Length.DATA, FrameRules.Phase.MEMBER, FrameRules.Phase.OPERATION),
    /** The job ends (from the server), or a member ends it; the bytes are a {@link Cause}. */
    ABORT(2, Length.CAUSE, FrameRules.Phase.values()),
    /** A member closes its rendezvous, or rank 0 closed its watched job (from the server); no bytes. */
    LEAVE(3, Length.NONE, FrameRules.Phase.values()),
    /** A member timed out waiting for its work in the library (a watched job); the bytes are a {@link Cause}. */
    STALL(4, Length.CAUSE, FrameRules.Phase.MEMBER),
    /** To a watcher: a rank's process died, or it was excluded; the bytes are a {@link Cause}. */
    GONE(5, Length.CAUSE, FrameRules.Phase.WATCHING),
    /** To a replacement or a process that joins: the members take it in at this message's operation; no bytes. */
    REJOIN(6, Length.NONE, FrameRules.Phase.AWAITING_REJOIN),
    /** A member's job is watched from now on, until its next operation; no bytes. */
    WATCH(7, Length.NONE, FrameRules.Phase.MEMBER),
    /** A member's part of a reunion with the replacements of the dead ranks; how long it waits for them (ms). */
    REUNION(8, Length.exactly(Long.BYTES), FrameRules.Phase.MEMBER),
    /** A member's value for a broadcast: rank 0's is the one, the others send none. */
    BROADCAST(9, Length.DATA, FrameRules.Phase.MEMBER),
    /** A member's value for an allgather of survivors, which goes on without the ranks that are gone. */
    SURVIVORS(10, Length.DATA, FrameRules.Phase.MEMBER),
    /** A sign of life, both ways; the bytes: the sender's rank (-1 from the server). */
    HEARTBEAT(11, Length.between(Integer.BYTES, Integer.BYTES + Progress.MAX_BYTES), FrameRules.Phase.values()),
    /** From the server: the member is excluded from the job; the bytes are a {@link Cause}; its connection closes. */
    FENCED(12, Length.CAUSE, FrameRules.Phase.OPERATION, FrameRules.Phase.WATCHING, FrameRules.Phase.AWAITING_REJOIN),
    /** From the server: it turned away a claim to join (a wrong token, another version); the bytes are a {@link Cause}. */
    REFUSED(13, Length.CAUSE, FrameRules.Phase.OPERATION, FrameRules.Phase.WATCHING, FrameRules.Phase.AWAITING_REJOIN),
    /** A member's part of a growth: how long it waits for the joiners (ms, a long), and how many it asks for (an int). */
    GROW(14, Length.exactly(Long.BYTES + Integer.BYTES), FrameRules.Phase.MEMBER, FrameRules.Phase.JOINER_WAITING),
    /** A member's job is watched no more (to the server), or its watch ends here (from the server); no bytes. */
    UNWATCH(15, Length.NONE, FrameRules.Phase.MEMBER, FrameRules.Phase.WATCHING),
    /**
     * A client asks for every live rank's flight record (to the server), or the server asks a member for its record;
     * the bytes: the directory to write into (UTF-8; none: each rank's own).
     */
    DUMP(
            16,
            Length.between(0, Dumps.MAX_DIRECTORY_BYTES),
            FrameRules.Phase.DUMPER,
            FrameRules.Phase.OPERATION,
            FrameRules.Phase.WATCHING,
            FrameRules.Phase.AWAITING_REJOIN),
    /**
     * A member's answer to a DUMP: the files it wrote (to the server); every rank's answer, or why there is none (to
     * the client that asked). {@link Dumps} lays out both.
     */
    DUMPED(17, Length.DATA, FrameRules.Phase.MEMBER, FrameRules.Phase.DUMPING);

    private static final FrameType[] BY_WIRE = new FrameType[256];

    static {
        for (FrameType type : values()) {
            if (BY_WIRE[type.wire & 0xff] != null) {
                throw new ExceptionInInitializerError("two frame types on wire byte " + type.wire);
            }
            BY_WIRE[type.wire & 0xff] = type;
        }
    }

    /** Its byte on the wire. */
    public final byte wire;

    private final Length length;
    private final Set<FrameRules.Phase> legalIn;

    FrameType(int wire, Length length, FrameRules.Phase... legalIn) {
        this.wire = (byte) wire;
        this.length = length;
        this.legalIn = EnumSet.of(legalIn[0], legalIn);
    }

    /** The type whose wire byte is {@code wire}, or null where there is none. */
    public static FrameType ofWire(byte wire) {
        return BY_WIRE[wire & 0xff];
    }

    /** Whether it is legal in {@code phase}. */
    boolean legalIn(FrameRules.Phase phase) {
        return legalIn.contains(phase);
    }

    /** The most bytes it may carry, where an operation's value may have {@code maxData}. */
    public int maxBytes(int maxData) {
        return length == Length.DATA ? maxData : length.max;
    }

    /** The fewest bytes it may carry. */
    public int minBytes() {
        return length.min;
    }

    /** Whether it carries exactly {@link #maxBytes} (a fixed layout), not at most. */
    public boolean fixedLength() {
        return length.exact;
    }

    /** Whether its bytes are a {@link Cause}: it reports a failure, and whom it concerns. */
    public boolean reportsFailure() {
        return length == Length.CAUSE;
    }

    /** How long a type's bytes may be. */
    private record Length(int min, int max, boolean exact) {
        static final Length NONE = new Length(0, 0, true);
        /** An operation's value: the bound is the operation's. */
        static final Length DATA = new Length(0, -1, false);

        static final Length CAUSE = new Length(0, Cause.MAX_BYTES, false);

        static Length exactly(int bytes) {
            return new Length(bytes, bytes, true);
        }

        static Length between(int min, int max) {
            return new Length(min, max, false);
        }
    }
}
