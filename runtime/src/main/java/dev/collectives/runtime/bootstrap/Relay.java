package dev.collectives.runtime.bootstrap;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Rank 0's side of each operation of a TCP job, a star: it takes every member's message for the operation (which
 * the members' listeners deliver as they come), checks it, and sends each member the answer. From
 * {@link #allGatherOfSurvivors} on, a member whose process dies is left out instead of ending the job. Guarded by
 * rank 0's lock, which it shares: a failure of the job, seen by any thread, ends the operation under way.
 */
final class Relay {
    private final TcpRoot root;
    private final Object lock;
    private final Roster roster;
    /** Each member's message not yet taken, and whether it left, died or has a replacement waiting. */
    private final Members members;
    /** Which ranks heard of which deaths (rank 0 too, whose watcher is this process's). */
    private final DeathNews news;
    /** Whether a member's death leaves the others going on ({@link #allGatherOfSurvivors} was called). */
    private boolean survivorsGoOn;

    private boolean inOperation;
    /** The member whose message the operation under way waits for; 0 while it waits for none. */
    private int awaited;

    Relay(TcpRoot root, Object lock, Roster roster) {
        this.root = root;
        this.lock = lock;
        this.roster = roster;
        this.members = new Members(root.size());
        this.news = new DeathNews(root.size());
    }

    byte[] broadcast(byte[] value, Deadline deadline) {
        begin();
        try {
            for (int r = 1; r < root.size(); r++) {
                sendTo(r, value, deadline, false);
            }
            return value;
        } finally {
            end();
        }
    }

    byte[][] allGather(byte[] value, Deadline deadline) {
        begin();
        try {
            int size = root.size();
            byte[][] values = new byte[size][];
            values[0] = value;
            byte[] all = new byte[value.length * size];
            System.arraycopy(value, 0, all, 0, value.length);
            for (int r = 1; r < size; r++) {
                values[r] = contribution(r, take(r, deadline, false), value.length);
                System.arraycopy(values[r], 0, all, r * value.length, value.length);
            }
            for (int r = 1; r < size; r++) {
                sendTo(r, all, deadline, false);
            }
            return values;
        } finally {
            end();
        }
    }

    /**
     * From now on a member whose process dies is left out, not the end of the job: its value is missing and the
     * survivors are told why. Each survivor gets the same answer.
     */
    Rendezvous.Survivors allGatherOfSurvivors(byte[] value, Deadline deadline) {
        synchronized (lock) {
            survivorsGoOn = true;
        }
        begin();
        try {
            int size = root.size();
            Rendezvous.Survivors survivors = new Rendezvous.Survivors(new byte[size][], new String[size]);
            survivors.values()[0] = value;
            for (int r = 1; r < size; r++) {
                Channel.Frame frame = take(r, deadline, true);
                if (frame == null) {
                    survivors.goneReasons()[r] = goneReason(r);
                } else {
                    survivors.values()[r] = contribution(r, frame, value.length);
                }
            }
            byte[] answer = Channel.survivors(survivors);
            for (int r = 1; r < size; r++) {
                if (survivors.goneReasons()[r] == null) {
                    sendTo(r, answer, deadline, true);
                }
            }
            return survivors;
        } finally {
            end();
        }
    }

    /**
     * The survivors meet the replacements of the ranks that died: once one of each has been admitted (by
     * {@code deadline}), each is told the number of this operation, its first; then every rank's empty message is
     * taken, and each is answered with the ranks replaced (a bitmap). From then on those ranks take part again.
     */
    int[] reunite(Deadline deadline) {
        begin();
        try {
            int size = root.size();
            BitSet replaced = awaitReplacements(deadline);
            replaced.stream().forEach(r -> rejoin(r, deadline));
            for (int r = 1; r < size; r++) {
                contribution(r, take(r, deadline, false), 0);
            }
            byte[] answer = Arrays.copyOf(replaced.toByteArray(), (size + 7) / 8);
            for (int r = 1; r < size; r++) {
                sendTo(r, answer, deadline, false);
            }
            return replaced.stream().toArray();
        } finally {
            end();
        }
    }

    /** Waits until every rank that died has a replacement admitted; returns them, no longer gone. */
    private BitSet awaitReplacements(Deadline deadline) {
        String failure;
        synchronized (lock) {
            while (root.failure() == null
                    && !deadline.expired()
                    && !members.unreplaced().isEmpty()) {
                root.waitForNews(deadline);
            }
            String missing = members.unreplaced();
            if (root.failure() == null && missing.isEmpty()) {
                return members.reunite();
            }
            failure = root.failure() != null
                    ? root.failure()
                    : "no replacement joined at " + root.where() + " " + deadline.within() + " for " + missing;
        }
        throw root.fail(failure, null);
    }

    /** Tells the replacement of rank {@code rank} the number of this operation, where it joins the others. */
    private void rejoin(int rank, Deadline deadline) {
        Channel member = roster.member(rank);
        try {
            member.send(Channel.REJOIN, root.sequence(), new byte[0], deadline);
        } catch (IOException e) {
            throw root.fail(root.describe(member, e), e);
        }
    }

    // ---- what the admission and the members' listeners deliver (with the lock held)
    // ---------------------------------------------

    /** Member {@code rank}'s message; why it cannot be taken (one is still waiting), or null. */
    String deliver(int rank, Channel.Frame frame) {
        Channel.Frame waiting = members.deliver(rank, frame);
        if (waiting != null) {
            return roster.member(rank).peer() + " sent a message for operation #" + frame.operation()
                    + " before its message for operation #" + waiting.operation() + " was used";
        }
        news.operating(rank);
        lock.notifyAll();
        return null;
    }

    /** Rank {@code rank} watches its job from now on: the first death it has not heard of, to tell it now, or null. */
    String watch(int rank) {
        return news.watch(rank);
    }

    /**
     * As the job closes: the first death that member {@code rank}, alive, has not heard of, which it is to hear now
     * instead of the close, or null; after this it hears of none.
     */
    String lastNews(int rank) {
        String unheard = members.isGone(rank) ? null : news.unheard(rank);
        news.operating(rank);
        return unheard;
    }

    /** Whether {@code rank} died and the survivors have not met a replacement of it yet. */
    boolean isGone(int rank) {
        return members.isGone(rank);
    }

    /** Whether a replacement of {@code rank}, which died, was admitted and waits for the survivors. */
    boolean isReplaced(int rank) {
        return members.isReplacing(rank);
    }

    /** {@code member} was admitted in the place of {@code rank}, which died: the survivors meet it in a reunion. */
    void replaced(int rank, Channel member) {
        roster.replace(rank, member);
        members.replaced(rank);
        news.replaced(rank);
        lock.notifyAll();
    }

    /** Member {@code rank} closed its rendezvous and said so: its connection ending now is no failure. */
    void leave(int rank) {
        members.leave(rank);
        lock.notifyAll();
    }

    boolean hasLeft(int rank) {
        return members.hasLeft(rank);
    }

    /** Whether a member's death leaves the others going on: the job is watched, or its survivors met. */
    boolean survivorsGoOn() {
        return survivorsGoOn;
    }

    /**
     * Member {@code rank}'s process died: the survivors go on without it, and may meet again. Returns the ranks that
     * watch their job (rank 0 among them), which are to hear of it now; the others hear of it when they watch again.
     */
    List<Integer> died(int rank, String reason) {
        survivorsGoOn = true;
        members.died(rank, reason);
        lock.notifyAll();
        return news.died(rank, reason);
    }

    /** Whether a member's process died and the survivors went on. */
    boolean anyGone() {
        return members.anyGone();
    }

    /** Whether an operation is under way. */
    boolean inOperation() {
        return inOperation;
    }

    /** Returns once an operation waits for member {@code rank}'s message: tests order their events by it. */
    void awaitWaitingFor(int rank) throws InterruptedException {
        synchronized (lock) {
            while (awaited != rank) {
                lock.wait();
            }
        }
    }

    // ---- an operation's steps --------------------------------------------------------------------------------

    private String goneReason(int rank) {
        synchronized (lock) {
            return members.missing(rank);
        }
    }

    /** Member {@code rank}'s value, checked: for this operation, and as long as rank 0's. */
    private byte[] contribution(int rank, Channel.Frame frame, int length) {
        if (frame.operation() != root.sequence()) {
            throw root.fail(
                    roster.member(rank).peer() + " sent a message for operation #" + frame.operation()
                            + " during operation #" + root.sequence() + " (the ranks called different operations)",
                    null);
        }
        if (frame.bytes().length != length) {
            throw root.fail(
                    roster.member(rank).peer() + " contributed " + frame.bytes().length + " bytes to "
                            + root.operation() + ", rank 0 " + length
                            + " bytes (the ranks called it with different sizes)",
                    null);
        }
        return frame.bytes();
    }

    /** An operation starts: a job that failed meanwhile fails it at once. */
    private void begin() {
        String late;
        synchronized (lock) {
            late = root.failure();
            inOperation = true;
        }
        if (late != null) {
            throw root.fail(late, null);
        }
    }

    /** An operation ended: rank 0 has seen every death so far in it. */
    private void end() {
        synchronized (lock) {
            inOperation = false;
            news.operating(0);
        }
    }

    /**
     * Member {@code rank}'s message for this operation, once it comes; the job's failure if it ends first. A member
     * that is gone fails the operation, unless {@code survivable}: then it is null.
     */
    private Channel.Frame take(int rank, Deadline deadline, boolean survivable) {
        String failure;
        synchronized (lock) {
            awaited = rank;
            lock.notifyAll();
            while (members.awaited(rank) && root.failure() == null && !deadline.expired()) {
                root.waitForNews(deadline);
            }
            awaited = 0;
            String fatal = root.failure();
            if (fatal == null && members.arrived(rank)) {
                return members.take(rank);
            }
            if (fatal == null && members.isGone(rank) && survivable) {
                return null;
            }
            Channel member = roster.member(rank);
            failure = fatal != null
                    ? fatal
                    : members.isGone(rank)
                            ? members.missing(rank)
                            : members.hasLeft(rank)
                                    ? member.peer() + " closed its rendezvous before " + root.operation()
                                    : member.peer() + " did not take part in " + root.operation() + " "
                                            + deadline.within();
        }
        throw root.fail(failure, null);
    }

    /**
     * Sends this operation's answer to member {@code rank}. A member that is gone fails the operation, unless
     * {@code survivable}: then it is left out from the next operation on.
     */
    private void sendTo(int rank, byte[] bytes, Deadline deadline, boolean survivable) {
        Channel member = roster.member(rank);
        try {
            member.send(Channel.DATA, root.sequence(), bytes, deadline);
        } catch (IOException e) {
            if (survivable && !(e instanceof SocketTimeoutException)) {
                String reason = root.describe(member, e);
                synchronized (lock) {
                    if (!members.isGone(rank)) {
                        members.died(rank, reason);
                    }
                }
                return;
            }
            throw root.fail(
                    e instanceof SocketTimeoutException
                            ? member.peer() + " did not take part in " + root.operation() + " " + deadline.within()
                            : root.describe(member, e),
                    e);
        }
    }
}
