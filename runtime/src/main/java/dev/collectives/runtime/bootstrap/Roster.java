package dev.collectives.runtime.bootstrap;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Who is in a TCP job, as its server keeps it: each rank's claim (where its admitted connection came from), the
 * connections of the ranks that joined, and which ranks that never joined were turned away with why the job ended.
 * Every rank is a member, rank 0 too. Processes that join a running job hold the numbers after its highest until it
 * grows ({@link #claimJoining}, {@link #grow}). Guarded by the server's lock; telling the members something happens
 * outside it.
 */
final class Roster {
    /** The job's size: its ranks are 0 to size - 1; the processes waiting to join hold the numbers after. */
    private int size;
    /** Whether rank 0's process hosts the server (then it dies with rank 0, which is never replaced). */
    private final boolean hostedByRankZero;
    /** The server, for messages: "rank 0 at tcp://host:port", "the rendezvous server at tcp://host:port". */
    private final String server;
    /** Where each rank's admitted connection came from, from the moment its claim was checked. */
    private String[] claimedFrom;

    private Channel[] members;
    /** Which ranks that never joined have been turned away with the reason the job ended. */
    private boolean[] toldLate;

    private int joined;

    Roster(int size, boolean hostedByRankZero, String server) {
        this.size = size;
        this.hostedByRankZero = hostedByRankZero;
        this.server = server;
        this.claimedFrom = new String[size];
        this.members = new Channel[size];
        this.toldLate = new boolean[size];
    }

    /**
     * Claims rank {@code rank} for the peer at {@code from}, which says the world has {@code claimedSize} ranks;
     * returns why it cannot be that rank of this job, or null.
     */
    String claim(int rank, int claimedSize, String from) {
        if (claimedSize != size) {
            return "rank " + rank + " at " + from + " says the world size is " + claimedSize + ", " + server + " says "
                    + size;
        }
        if (rank < 0 || rank >= size) {
            return "a peer at " + from + " claims rank " + rank + ", outside 0.." + (size - 1);
        }
        if (claimedFrom[rank] != null) {
            return "duplicate rank " + rank + ": it joined from " + claimedFrom[rank] + " and again from " + from;
        }
        claimedFrom[rank] = from;
        return null;
    }

    /**
     * Claims rank {@code rank} for a replacement at {@code from} of a rank that died ({@code dead}; one of it was
     * admitted already when {@code replaced}); returns why it cannot take that rank's place, or null. A replacement
     * refused does not end the job.
     */
    String claimReplacement(int rank, int claimedSize, String from, boolean dead, boolean replaced) {
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
        if (replaced) {
            return refused + "a replacement for rank " + rank + " joined from " + claimedFrom[rank] + " already";
        }
        if (!dead) {
            return refused + "rank " + rank + " was not reported dead (only a rank whose process died is replaced)";
        }
        claimedFrom[rank] = from;
        return null;
    }

    /**
     * Claims the lowest number after the job's ranks that no other process waiting to join holds, for the process
     * at {@code from} that joins the job at its next growth; returns it. The server has made room for it
     * ({@link #capacity}).
     */
    int claimJoining(String from) {
        int number = nextJoining();
        claimedFrom[number] = from;
        return number;
    }

    /** Where rank {@code rank}'s claim came from ("/10.0.0.2:51234"), or null where none claimed it. */
    String from(int rank) {
        return rank < claimedFrom.length ? claimedFrom[rank] : null;
    }

    /** How many numbers the roster holds room for: the job's ranks and the processes waiting to join. */
    int capacity() {
        return members.length;
    }

    /** Makes room for {@code capacity} numbers. */
    void makeRoom(int capacity) {
        claimedFrom = Arrays.copyOf(claimedFrom, capacity);
        members = Arrays.copyOf(members, capacity);
        toldLate = Arrays.copyOf(toldLate, capacity);
    }

    /** The lowest number a process that joins would claim now (the room it needs is one more). */
    int nextJoining() {
        int number = size;
        while (number < claimedFrom.length && claimedFrom[number] != null) {
            number++;
        }
        return number;
    }

    /** The process waiting to join as {@code number} was admitted on {@code member}. */
    void admitJoining(int number, Channel member) {
        members[number] = member;
    }

    /** The process that held {@code number} to join no longer does (it died, left, or was turned away). */
    void dropJoining(int number) {
        members[number] = null;
        claimedFrom[number] = null;
    }

    /** The processes waiting to join that hold the numbers from the job's size on, lowest first. */
    List<Integer> joining() {
        return IntStream.range(size, members.length)
                .filter(r -> members[r] != null)
                .boxed()
                .collect(Collectors.toList());
    }

    /** The job grew to {@code newSize}: the processes that held the numbers below it are its ranks now. */
    void grow(int newSize) {
        joined += newSize - size;
        size = newSize;
    }

    /** A replacement takes the place of rank {@code rank}, which died, with its own connection. */
    void replace(int rank, Channel member) {
        members[rank] = member;
    }

    /** Gives up the claim of a peer that could not be told it was admitted: it may try again. */
    void unclaim(int rank) {
        claimedFrom[rank] = null;
    }

    void join(int rank, Channel member) {
        members[rank] = member;
        joined++;
    }

    /** Whether every member has joined. */
    boolean complete() {
        return joined == size;
    }

    /** The connection of {@code rank}, which joined. */
    Channel member(int rank) {
        return members[rank];
    }

    /** The connections of the ranks that joined. */
    List<Channel> members() {
        return Arrays.stream(members).filter(Objects::nonNull).collect(Collectors.toList());
    }

    /** {@code rank} (as it claims) was turned away with why the job ended. */
    void toldLate(int rank) {
        if (rank >= 0 && rank < Math.min(size, toldLate.length)) {
            toldLate[rank] = true;
        }
    }

    /** "rank 3", "ranks 1, 2": those that have not joined. */
    String missing() {
        List<String> ranks = IntStream.range(0, size)
                .filter(r -> members[r] == null)
                .mapToObj(Integer::toString)
                .collect(Collectors.toList());
        return (ranks.size() == 1 ? "rank " : "ranks ") + String.join(", ", ranks);
    }

    /** Whether some rank has neither joined nor been told why the job ended. */
    boolean lateRanksUntold() {
        return IntStream.range(0, size).anyMatch(r -> members[r] == null && !toldLate[r]);
    }

    /**
     * Tells {@code member} why the job ended (best effort, by {@code deadline}), at operation {@code sequence}:
     * "rank 0 ended the job: {@code reason}", or the standalone server did; the {@code reason} alone where it is
     * {@code plain} (rank 0 hears so from the server its process hosts).
     */
    void tellEnded(Channel member, String reason, int sequence, Deadline deadline, boolean plain) {
        String endedBy = hostedByRankZero ? "rank 0" : server;
        String text = plain ? reason : endedBy + " ended the job: " + reason;
        try {
            member.send(Channel.ABORT, sequence, Channel.truncate(text), deadline);
        } catch (IOException ignored) {
            // that member is gone or stuck; it fails on its own deadline
        }
    }

    /** Tells a member of a watched job that a rank died, {@code reason} says which and how (best effort). */
    static void tellGone(Channel member, String reason, int sequence, Deadline deadline) {
        try {
            member.send(Channel.GONE, sequence, Channel.truncate(reason), deadline);
        } catch (IOException ignored) {
            // that member is gone too, or stuck; it fails at its next operation
        }
    }

    /** Tells a member of a watched job that rank 0 closed it (best effort, by {@code deadline}). */
    static void tellClosed(Channel member, int sequence, Deadline deadline) {
        try {
            member.send(Channel.LEAVE, sequence, new byte[0], deadline);
        } catch (IOException ignored) {
            // that member is gone already; nothing is left to tell it
        }
    }
}
