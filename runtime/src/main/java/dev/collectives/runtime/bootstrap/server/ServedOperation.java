package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.ServedOperations;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;

/**
 * One operation a job's server serves, as its messages come: every live rank's message, and each rank that took
 * part answered with all of them; the ranks check the answer themselves ({@link ServedOperations}). A reunion first
 * takes the survivors' messages, then waits for the replacement of every dead rank for the shortest time the
 * survivors gave, tells each replacement where it joins, takes their messages, and answers with the ranks replaced.
 * A growth is a {@link ServedGrowth}. Only an allgather of survivors, a reunion and a growth go on without a rank
 * that is gone or left. It moves on ({@link #advance}) whenever something happens, on the server's loop thread.
 */
class ServedOperation {
    final ServedJob job;
    final int number;
    final FrameType type;
    /** "allgather #2", for messages. */
    final String name;
    /** Until when the ranks may take to send their messages; past it, the job ends naming the rank awaited. */
    private final ServerLoop.Timer deadline;

    /** The messages taken so far. */
    Collection collection;

    private boolean done;
    /** A reunion's stage: the survivors, the wait for replacements, the replacements. */
    private int stage;

    private BitSet replaced;
    private ServerLoop.Timer replacementsWait;

    ServedOperation(ServedJob job, int number, FrameType type) {
        this.job = job;
        this.number = number;
        this.type = type;
        this.name = operationName(type, number);
        this.deadline = job.loop.after(job.timeout, this::deadlinePassed);
    }

    /** Operation {@code number} of the kind its messages' {@code type} says. */
    static ServedOperation of(ServedJob job, int number, FrameType type) {
        return type == FrameType.GROW ? new ServedGrowth(job, number) : new ServedOperation(job, number, type);
    }

    /** "broadcast #1", "allgather #2", "reunion #3": what a message of {@code type} takes part in. */
    static String operationName(FrameType type, int operation) {
        String kind = switch (type) {
            case BROADCAST -> "broadcast";
            case REUNION -> "reunion";
            case GROW -> "growth";
            default -> "allgather";
        };
        return kind + " #" + operation;
    }

    /** Whether it was answered. */
    final boolean done() {
        return done;
    }

    /** The rank whose message it waits for, or -1. */
    final int awaited() {
        return collection == null ? -1 : collection.awaited();
    }

    /** Goes as far as the messages allow; returns whether it was answered. Throws where the job ended. */
    boolean advance() {
        int ranks = job.roster.size();
        if (collection == null) {
            collection = new Collection(ranks);
            if (type == FrameType.REUNION) {
                collection.expect(job.roster.survivors(ranks));
            } else {
                BitSet all = new BitSet();
                all.set(0, ranks);
                collection.expect(all);
            }
        }
        if (!collection.advance()) {
            return false;
        }
        if (type == FrameType.REUNION && !reunite()) {
            return false;
        }
        byte[] answer = type == FrameType.REUNION
                ? Arrays.copyOf(replaced.toByteArray(), (ranks + 7) / 8)
                : Channel.gathered(new Rendezvous.Survivors(collection.values, collection.missing));
        answerAll(answer, collection.values);
        return true;
    }

    /** A reunion, its survivors' messages taken: waits for the replacements and takes theirs; whether it has. */
    private boolean reunite() {
        if (stage == 0) {
            stage = 1;
            replacementsWait = job.loop.after(collection.shortestWait(job.timeout), () -> {
                stage = 2;
                job.advance();
            });
        }
        String unreplaced = job.roster.unreplaced();
        if (stage == 1 && !unreplaced.isEmpty()) {
            return false;
        }
        if (replaced == null) {
            if (!unreplaced.isEmpty()) {
                throw ends(Cause.of(
                        Cause.Kind.NEVER_JOINED,
                        "no replacement joined at " + job.server.endpoint() + " within "
                                + Settings.formatDuration(collection.shortestWait(job.timeout)) + " for " + unreplaced
                                + job.turnedAway()));
            }
            replacementsWait.cancel();
            replaced = job.roster.reunite();
            replaced.stream().forEach(r -> job.send(job.roster.slot(r), FrameType.REJOIN, new byte[0], number));
            collection.expect(replaced);
        }
        return collection.advance();
    }

    /** Ends the operation: each rank that took part ({@code values} not null) hears {@code answer}, rank 0 last. */
    final void answerAll(byte[] answer, byte[][] values) {
        deadline.cancel();
        done = true;
        job.sequence = number;
        job.answered(this);
        for (int r = values.length - 1; r >= 0; r--) {
            if (values[r] != null) {
                job.send(collection.slots[r], FrameType.DATA, answer, number);
            }
        }
    }

    private void deadlinePassed() {
        if (done || job.fatal != null || job.closed) {
            return;
        }
        int awaited = awaited();
        String who = awaited >= 0 ? collection.slots[awaited].connection.peer() : "a rank";
        try {
            throw ends(Cause.of(
                    Cause.Kind.NEVER_ARRIVED,
                    who + " did not take part in " + name + " at " + job.server.endpoint() + " within "
                            + Settings.formatDuration(job.timeout),
                    awaited >= 0 ? new int[] {awaited} : new int[0]));
        } catch (IllegalStateException ended) {
            job.advance();
        }
    }

    /** Ends the job for {@code reason} and returns what stops the operation. */
    final IllegalStateException ends(Cause reason) {
        deadline.cancel();
        job.endJob(reason);
        return new IllegalStateException(reason.text());
    }

    /**
     * The messages of one operation, taken in the order of the ranks as they come: each rank's value, or why it is
     * missing. The ranks below the cursor are settled, so each message is looked at once.
     */
    final class Collection {
        final Slot[] slots;
        final byte[][] values;
        final String[] missing;
        /** The ranks whose message is still to be taken. */
        private final BitSet pending = new BitSet();
        /** The lowest of them: every rank below it was taken, or is missing for good. */
        private int cursor = -1;

        Collection(int ranks) {
            this.slots = new Slot[ranks];
            this.values = new byte[ranks][];
            this.missing = new String[ranks];
        }

        /** Takes the messages of {@code ranks} too, after those expected so far. */
        void expect(BitSet ranks) {
            ranks.stream().forEach(r -> slots[r] = job.roster.slot(r));
            pending.or(ranks);
            cursor = pending.nextSetBit(0);
        }

        /** The rank whose message it waits for, or -1. */
        int awaited() {
            return cursor;
        }

        /** Takes what has come; returns whether every expected message was taken (or is missing for good). */
        boolean advance() {
            while (cursor >= 0) {
                Slot slot = slots[cursor];
                if (slot.awaited()) {
                    return false;
                }
                collect(cursor, slot);
                pending.clear(cursor);
                cursor = pending.nextSetBit(cursor + 1);
            }
            return true;
        }

        /** Takes rank {@code rank}'s message; the job ends where it is missing and the operation needs every rank. */
        private void collect(int rank, Slot slot) {
            if (slot.inbox == null) {
                missing[rank] = slot.fate == Slot.Fate.LEFT
                        ? slot.connection.peer() + " closed its rendezvous before " + name
                        : slot.why.text();
                if (type == FrameType.DATA || type == FrameType.BROADCAST) {
                    throw ends(Cause.of(Cause.Kind.DIED, missing[rank], rank));
                }
                return;
            }
            Channel.Frame frame = job.take(slot);
            if (frame.operation() != number || frame.type() != type) {
                throw ends(Cause.of(
                        Cause.Kind.DIVERGED,
                        slot.connection.peer() + " sent a message for "
                                + operationName(frame.type(), frame.operation()) + " during " + name
                                + " (the ranks called different operations)",
                        rank));
            }
            values[rank] = frame.bytes();
        }

        /** The shortest time the members said they wait (for replacements or joiners), or {@code otherwise}. */
        Duration shortestWait(Duration otherwise) {
            return Arrays.stream(values)
                    .filter(v -> v != null && v.length >= Long.BYTES)
                    .map(v -> Duration.ofMillis(ByteBuffer.wrap(v).getLong()))
                    .min(Duration::compareTo)
                    .orElse(otherwise);
        }
    }
}
