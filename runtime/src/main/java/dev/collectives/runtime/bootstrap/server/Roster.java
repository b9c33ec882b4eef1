package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Who is in a TCP job, as its server keeps it: the job's size (kept here alone), one {@link Slot} per rank that
 * joined, and one per process waiting to join at the next growth (they hold the numbers after the job's ranks), the
 * deaths so far and which ranks that never joined were told why the job ended. Every rank is a member, rank 0 too.
 * Owned by the server's loop thread; telling the members something is the server's.
 */
final class Roster {
    /** The job's size: its ranks are 0 to size - 1; the processes waiting to join hold the numbers after. */
    private int size;
    /** Whether rank 0's process hosts the server (then it dies with rank 0, which is never replaced). */
    private final boolean hostedByRankZero;
    /** The server, for messages: "rank 0 at tcp://host:port", "the rendezvous server at tcp://host:port". */
    private final String server;
    /** Each number's slot; null where no process holds it. */
    private Slot[] slots;
    /** How many of the job's ranks joined (a growth counts those it took in). */
    private int joined;
    /** Which ranks that never joined have been turned away with the reason the job ended. */
    private final BitSet toldLate = new BitSet();
    /** Why each rank that died is gone, in the order they died. */
    private final List<Cause> deaths = new ArrayList<>();

    Roster(int size, boolean hostedByRankZero, String server) {
        this.size = size;
        this.hostedByRankZero = hostedByRankZero;
        this.server = server;
        this.slots = new Slot[size];
    }

    /** The job's size. */
    int size() {
        return size;
    }

    /** The slot of {@code number} (a rank, or a process waiting to join), or null where none holds it. */
    Slot slot(int number) {
        return number >= 0 && number < slots.length ? slots[number] : null;
    }

    /**
     * Why the peer at {@code from}, which says the world has {@code claimedSize} ranks, cannot be rank {@code rank}
     * of this job, or null.
     */
    String claim(int rank, int claimedSize, String from) {
        if (claimedSize != size) {
            return "rank " + rank + " at " + from + " says the world size is " + claimedSize + ", " + server + " says "
                    + size;
        }
        if (rank < 0 || rank >= size) {
            return "a peer at " + from + " claims rank " + rank + ", outside 0.." + (size - 1);
        }
        if (slots[rank] != null) {
            return "duplicate rank " + rank + ": it joined from " + slots[rank].claimedFrom + " and again from " + from;
        }
        return null;
    }

    /**
     * Why a replacement at {@code from} cannot take the place of rank {@code rank}, or null: only a rank that died
     * is replaced, once until the survivors meet its replacement. A replacement refused does not end the job.
     */
    String claimReplacement(int rank, int claimedSize, String from) {
        String refused = "a replacement for rank " + rank + " at " + from + " was refused: ";
        if (claimedSize != size) {
            return refused + "it says the world size is " + claimedSize + ", " + server + " says " + size;
        }
        if (rank < 0 || rank >= size) {
            return refused + "the ranks of this job are 0.." + (size - 1);
        }
        if (rank == 0 && hostedByRankZero) {
            return refused + server + " serves the rendezvous and is alive";
        }
        Slot slot = slots[rank];
        if (slot != null && slot.fate == Slot.Fate.REPLACING) {
            return refused + "a replacement for rank " + rank + " joined from " + slot.claimedFrom + " already";
        }
        if (slot == null || !slot.gone()) {
            return refused + "rank " + rank + " was not reported dead (only a rank whose process died is replaced)";
        }
        return null;
    }

    /** Rank {@code rank}, whose claim was checked, joined from {@code from} on {@code connection}. */
    Slot join(int rank, String from, ServerConnection connection) {
        joined++;
        return seat(new Slot(rank, from, Slot.Fate.ALIVE, connection));
    }

    /** A replacement of {@code rank}, which died, joined: a fresh slot, which waits for the survivors. */
    Slot replace(int rank, String from, ServerConnection connection) {
        return seat(new Slot(rank, from, Slot.Fate.REPLACING, connection));
    }

    /**
     * A process that joins at the next growth came from {@code from}: it holds the lowest number after the job's
     * ranks that no other process waiting to join holds.
     */
    Slot admitJoining(String from, ServerConnection connection) {
        int number = size;
        while (number < slots.length && slots[number] != null) {
            number++;
        }
        if (number >= slots.length) {
            slots = Arrays.copyOf(slots, number + 1);
        }
        return seat(new Slot(number, from, Slot.Fate.JOINING_BY_GROWTH, connection));
    }

    /** A process that starts now has heard of every death so far. */
    private Slot seat(Slot slot) {
        slot.heard = deaths.size();
        slots[slot.rank] = slot;
        return slot;
    }

    /** The process that held {@code slot}'s number to join no longer does: the number is free for another. */
    void dropJoining(Slot slot) {
        if (slots[slot.rank] == slot) {
            slots[slot.rank] = null;
        }
    }

    /** The processes waiting to join, lowest number first. */
    List<Slot> joining() {
        return Arrays.stream(slots, size, slots.length).filter(Objects::nonNull).collect(Collectors.toList());
    }

    /** The job grew to {@code newSize}: the processes that held the numbers below it are its ranks now. */
    void grow(int newSize) {
        for (int r = size; r < newSize; r++) {
            slots[r].fate = Slot.Fate.ALIVE;
        }
        joined += newSize - size;
        size = newSize;
    }

    /** Whether every rank has joined. */
    boolean complete() {
        return joined == size;
    }

    /** Every slot held, the processes waiting to join too. */
    Stream<Slot> slots() {
        return Arrays.stream(slots).filter(Objects::nonNull);
    }

    /** "rank 3", "ranks 1, 2": those that have not joined. */
    String missing() {
        int[] ranks = missingRanks();
        return (ranks.length == 1 ? "rank " : "ranks ")
                + Arrays.stream(ranks).mapToObj(Integer::toString).collect(Collectors.joining(", "));
    }

    /** The ranks that have not joined. */
    int[] missingRanks() {
        return IntStream.range(0, size).filter(r -> slots[r] == null).toArray();
    }

    /** The dead ranks without a replacement yet. */
    int[] unreplacedRanks() {
        return IntStream.range(0, size).filter(r -> slots[r].gone()).toArray();
    }

    /** {@code rank} (as it claims) was turned away with why the job ended. */
    void toldLate(int rank) {
        if (rank >= 0 && rank < size) {
            toldLate.set(rank);
        }
    }

    /** Whether some rank has neither joined nor been told why the job ended. */
    boolean lateRanksUntold() {
        return IntStream.range(0, size).anyMatch(r -> slots[r] == null && !toldLate.get(r));
    }

    /** The ranks below {@code ranks} whose process has not died, nor been replaced by one the survivors wait for. */
    BitSet survivors(int ranks) {
        BitSet survivors = new BitSet();
        IntStream.range(0, ranks)
                .filter(r -> !slots[r].gone() && slots[r].fate != Slot.Fate.REPLACING)
                .forEach(survivors::set);
        return survivors;
    }

    /** "rank 1 (rank 1 at … is gone: …)" for each dead rank without a replacement yet; empty when none. */
    String unreplaced() {
        return IntStream.range(0, size)
                .filter(r -> slots[r].gone())
                .mapToObj(r -> "rank " + r + " (" + slots[r].why.text() + ")")
                .collect(Collectors.joining("; "));
    }

    /** The survivors met the replacements of every dead rank: those ranks, which take part again from now on. */
    BitSet reunite() {
        BitSet replaced = new BitSet();
        for (int r = 0; r < size; r++) {
            if (slots[r].fate == Slot.Fate.REPLACING) {
                slots[r].fate = Slot.Fate.ALIVE;
                replaced.set(r);
            }
        }
        return replaced;
    }

    /** Whether every rank left or died (without a replacement waiting). */
    boolean over() {
        return complete() && IntStream.range(0, size).allMatch(r -> slots[r].fate == Slot.Fate.LEFT || slots[r].gone());
    }

    // ---- the news of deaths --------------------------------------------------------------------------------------

    /**
     * {@code dead}'s process died for {@code reason}; returns the ranks that watch, which are to hear it now (and
     * then watch no more until they say so again). A rank that did not watch hears it when it next watches, or from
     * its next operation's answer: so every death reaches every survivor once, also after a shrink or a reform.
     */
    List<Slot> died(Slot dead, Cause reason) {
        deaths.add(reason);
        dead.watching = false;
        List<Slot> told = new ArrayList<>();
        for (Slot slot : slots) {
            if (slot != null && slot.watching) {
                slot.watching = false;
                slot.heard = deaths.size();
                told.add(slot);
            }
        }
        return told;
    }

    /**
     * {@code slot} watches its job from now on; returns the first death it has not heard of, which it is to hear now
     * (it then no longer watches), or null.
     */
    Cause watch(Slot slot) {
        Cause news = unheard(slot);
        slot.watching = news == null;
        slot.heard = deaths.size();
        return news;
    }

    /** The first death that {@code slot} has not heard of, or null. */
    Cause unheard(Slot slot) {
        return slot.heard < deaths.size() ? deaths.get(slot.heard) : null;
    }

    /** {@code slot} takes part in an operation, whose answer says every death so far: it no longer watches. */
    void operating(Slot slot) {
        slot.watching = false;
        slot.heard = deaths.size();
    }

    /** How many ranks died. */
    int deathCount() {
        return deaths.size();
    }

    /** Why each rank that died is gone, in the order they died. */
    List<String> deaths() {
        return deaths.stream().map(Cause::text).toList();
    }
}
