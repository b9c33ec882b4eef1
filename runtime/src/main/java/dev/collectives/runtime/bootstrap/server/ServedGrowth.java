package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A growth of the job: every member's message (how long it waits for the processes that join, and how many it asks
 * for), then, within the shortest wait the members gave, the processes that hold the numbers after the job's ranks,
 * as many as asked; each is told where it joins and sends its message. The job then has its new size, which every
 * member and joiner hears. Where the members ask for different numbers, a member does not take part, fewer processes
 * came in time or one of them died first, every member hears why and the job goes on at its size; the processes
 * waiting to join are turned away with the reason. Those beyond the numbers asked for are turned away saying so.
 */
final class ServedGrowth extends ServedOperation {
    private final int before;
    private BitSet asking;
    private int added = -1;
    private String failure;
    private ServerLoop.Timer joinersWait;
    private boolean waitPassed;
    private boolean takenIn;

    ServedGrowth(ServedJob job, int number) {
        super(job, number, FrameType.GROW);
        this.before = job.roster.size();
    }

    @Override
    boolean advance() {
        if (collection == null) {
            collection = new Collection(before);
            asking = job.roster.survivors(before);
            collection.expect(asking);
        }
        if (added < 0) {
            if (!collection.advance()) {
                return false;
            }
            failure = disagreement();
            added = failure == null ? addedBy(collection.values[asking.nextSetBit(0)]) : 0;
            if (failure == null) {
                joinersWait = job.loop.after(collection.shortestWait(job.timeout), () -> {
                    waitPassed = true;
                    job.advance();
                });
            }
        }
        if (failure == null && !takenIn) {
            int came = came();
            if (came < added && !waitPassed) {
                return false;
            }
            joinersWait.cancel();
            if (came < added) {
                failure = name + " asked for " + added + (added == 1 ? " process" : " processes") + " to join, "
                        + came + " came to " + job.server.endpoint() + " within "
                        + Settings.formatDuration(collection.shortestWait(job.timeout));
            } else {
                turnAwayFrom(
                        before + added,
                        "the job at " + job.server.endpoint() + " grew by the " + added + " processes it asked "
                                + "for, which came first; this one came beyond them");
                takeIn();
            }
        }
        if (failure == null && !collection.advance()) {
            return false;
        }
        if (failure == null) {
            failure = notTakingPart();
        }
        finish();
        return true;
    }

    /** Why the members that take part cannot grow the job together, or null. */
    private String disagreement() {
        List<String> absent = new ArrayList<>();
        Map<Integer, List<Integer>> ranksByAdded = new TreeMap<>();
        asking.stream().forEach(r -> {
            if (collection.values[r] == null) {
                absent.add("rank " + r);
            } else {
                ranksByAdded
                        .computeIfAbsent(addedBy(collection.values[r]), a -> new ArrayList<>())
                        .add(r);
            }
        });
        if (!absent.isEmpty()) {
            return String.join(", ", absent) + " did not take part in " + name;
        }
        if (ranksByAdded.size() > 1) {
            return "the ranks asked for different numbers of processes to join: " + ranksByAdded;
        }
        return null;
    }

    /** How many of the {@code added} numbers after the job's ranks processes waiting to join hold. */
    private int came() {
        int came = 0;
        for (int r = before; r < before + added; r++) {
            Slot slot = job.roster.slot(r);
            came += slot != null && slot.fate == Slot.Fate.JOINING_BY_GROWTH ? 1 : 0;
        }
        return came;
    }

    /** Tells each process that joins where the members take it in, and takes its message from then on. */
    private void takeIn() {
        takenIn = true;
        Collection joined = new Collection(before + added);
        System.arraycopy(collection.values, 0, joined.values, 0, before);
        System.arraycopy(collection.slots, 0, joined.slots, 0, before);
        BitSet joiners = new BitSet();
        joiners.set(before, before + added);
        joined.expect(joiners);
        joiners.stream().forEach(r -> job.send(joined.slots[r], FrameType.REJOIN, new byte[0], number));
        collection = joined;
    }

    /** Why a process that joins did not take part, or null. */
    private String notTakingPart() {
        for (int r = before; r < before + added; r++) {
            if (collection.values[r] == null) {
                return "the process that joins as rank " + r + " did not take part: " + collection.missing[r];
            }
        }
        return null;
    }

    /** The job has its new size, or stays at its size where the growth failed; every member hears which. */
    private void finish() {
        if (failure != null) {
            turnAwayFrom(before, "the growth of the job at " + job.server.endpoint() + " failed: " + failure);
            System.getLogger("dev.collectives.bootstrap")
                    .log(
                            System.Logger.Level.DEBUG,
                            "at " + job.server.endpoint() + ", " + name + " failed: " + failure);
        } else {
            job.grow(before + added);
        }
        byte[] reason = failure == null ? new byte[0] : Cause.truncated(failure);
        byte[] answer = ByteBuffer.allocate(Integer.BYTES + reason.length)
                .putInt(failure == null ? before + added : before)
                .put(reason)
                .array();
        byte[][] values = failure == null ? collection.values : Arrays.copyOf(collection.values, before);
        answerAll(answer, values);
    }

    /** Turns each process waiting to join from number {@code from} on away, telling it {@code reason}. */
    private void turnAwayFrom(int from, String reason) {
        for (Slot joiner : job.roster.joining()) {
            if (joiner.rank >= from && joiner.fate == Slot.Fate.JOINING_BY_GROWTH) {
                job.dropJoining(joiner, Cause.of(Cause.Kind.TURNED_AWAY, "it was turned away: " + reason, joiner.rank));
                job.send(
                        joiner,
                        FrameType.ABORT,
                        Cause.of(Cause.Kind.TURNED_AWAY, reason).bytes(),
                        job.sequence);
                job.closeSoon(joiner.connection);
            }
        }
    }

    /** How many processes a member's growth message asks for. */
    private static int addedBy(byte[] message) {
        return ByteBuffer.wrap(message).getInt(Long.BYTES);
    }
}
