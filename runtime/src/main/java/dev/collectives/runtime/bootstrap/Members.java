package dev.collectives.runtime.bootstrap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * What the server of a TCP job ({@link JobServer}) knows of each rank beside its
 * connection: the message it sent for the operation not yet served, whether it left, why it is gone if its process
 * died, whether a replacement of a dead rank waits for the survivors, and which processes wait to join the job at its
 * next growth (they hold the numbers after its ranks). Guarded by the server's lock.
 */
final class Members {
    private int size;
    private Channel.Frame[] inbox;
    private String[] gone;
    private boolean[] replacing;
    private boolean[] left;
    private boolean[] joining;

    Members(int size) {
        this.size = size;
        this.inbox = new Channel.Frame[size];
        this.gone = new String[size];
        this.replacing = new boolean[size];
        this.left = new boolean[size];
        this.joining = new boolean[size];
    }

    /** Makes room for {@code capacity} numbers: the ranks and the processes waiting to join. */
    void makeRoom(int capacity) {
        inbox = Arrays.copyOf(inbox, capacity);
        gone = Arrays.copyOf(gone, capacity);
        replacing = Arrays.copyOf(replacing, capacity);
        left = Arrays.copyOf(left, capacity);
        joining = Arrays.copyOf(joining, capacity);
    }

    /** A process that joins the job at its next growth was admitted as {@code number}. */
    void admitJoining(int number) {
        inbox[number] = null;
        gone[number] = null;
        left[number] = false;
        joining[number] = true;
    }

    /** Whether {@code number} is held by a process waiting to join the job. */
    boolean isJoining(int number) {
        return number >= size && number < joining.length && joining[number];
    }

    /**
     * The process waiting to join as {@code number} no longer does, for {@code reason}: a growth that waits for its
     * message hears why; the number is free for another.
     */
    void dropJoining(int number, String reason) {
        inbox[number] = null;
        gone[number] = reason;
        joining[number] = false;
    }

    /** The job grew to {@code newSize}: the processes that held the numbers below it are its ranks now. */
    void grow(int newSize) {
        for (int r = size; r < newSize; r++) {
            joining[r] = false;
        }
        size = newSize;
    }

    /** Takes rank {@code rank}'s message for the next operation; returns the one still waiting instead, or null. */
    Channel.Frame deliver(int rank, Channel.Frame frame) {
        if (inbox[rank] != null) {
            return inbox[rank];
        }
        inbox[rank] = frame;
        return null;
    }

    /**
     * The waiting message of the lowest rank: the first of an operation not yet served, or null. The processes
     * waiting to join start none: they take part where the members take them in.
     */
    Channel.Frame firstWaiting() {
        return Arrays.stream(inbox, 0, size)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    }

    /** Whether rank {@code rank}'s message for the operation under way may still come: it is neither there nor gone. */
    boolean awaited(int rank) {
        return inbox[rank] == null && gone[rank] == null && !left[rank];
    }

    /** Rank {@code rank}'s message for the operation under way (null if it is gone or left), taken. */
    Channel.Frame take(int rank) {
        Channel.Frame frame = inbox[rank];
        inbox[rank] = null;
        return frame;
    }

    /** Why rank {@code rank} sends nothing: it is gone, or left. */
    String missing(int rank) {
        return gone[rank] != null ? gone[rank] : "rank " + rank + " closed its rendezvous";
    }

    void leave(int rank) {
        left[rank] = true;
    }

    boolean hasLeft(int rank) {
        return left[rank];
    }

    /** Rank {@code rank}'s process died for {@code reason}. */
    void died(int rank, String reason) {
        gone[rank] = reason;
        replacing[rank] = false; // a replacement that died before the survivors met it: another may come
    }

    /** Whether {@code rank} is a rank that died and has no replacement the survivors met. */
    boolean isGone(int rank) {
        return rank >= 0 && rank < size && gone[rank] != null;
    }

    /** Whether a replacement of {@code rank}, which died, was admitted and waits for the survivors. */
    boolean isReplacing(int rank) {
        return rank >= 0 && rank < size && replacing[rank];
    }

    /** A replacement of {@code rank}, which died, was admitted. */
    void replaced(int rank) {
        inbox[rank] = null; // what the dead rank sent and no operation took
        replacing[rank] = true;
    }

    /** Whether every rank left or died (without a replacement waiting). */
    boolean over() {
        return IntStream.range(0, size).allMatch(r -> left[r] || (gone[r] != null && !replacing[r]));
    }

    /** "rank 1 (rank 1 at … is gone: …)" for each dead rank without a replacement yet; empty when none. */
    String unreplaced() {
        List<String> missing = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (gone[r] != null && !replacing[r]) {
                missing.add("rank " + r + " (" + gone[r] + ")");
            }
        }
        return String.join("; ", missing);
    }

    /** The survivors met the replacements of every dead rank: those ranks, which take part again from now on. */
    BitSet reunite() {
        BitSet replaced = new BitSet();
        for (int r = 0; r < size; r++) {
            if (gone[r] != null) {
                replaced.set(r);
                gone[r] = null;
                replacing[r] = false;
                left[r] = false;
            }
        }
        return replaced;
    }
}
