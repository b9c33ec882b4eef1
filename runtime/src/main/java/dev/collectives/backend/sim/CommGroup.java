package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What the ranks of one communicator share: the rendezvous of collective calls and window registrations, the
 * point-to-point channels, the abort flag and the timeout. Its monitor guards all of that state; data moves
 * outside it. Here the ranks are threads of this process; {@link WireGroup} meets ranks in other processes.
 */
class CommGroup {
    private final int size;
    private final SimConfig config;
    private final Map<Long, CallMeeting<Launched>> collectives = new HashMap<>();
    private final Map<Long, CallMeeting<WindowArrival>> windows = new HashMap<>();
    private final PointToPoint pointToPoint;
    private String abortReason;

    CommGroup(SimConfig config) {
        this.size = config.ranks();
        this.config = config;
        this.pointToPoint = new PointToPoint(this);
    }

    int size() {
        return size;
    }

    SimConfig config() {
        return config;
    }

    long timeoutNanos() {
        return config.timeout().toNanos();
    }

    String timeoutText() {
        return config.timeout().toMillis() + " ms";
    }

    /**
     * Rank {@code rank}'s part of a collective call: meet the others, check they agree, move the data together.
     */
    void collective(int rank, Launched op) {
        CallMeeting<Launched> rv;
        synchronized (this) {
            rv = collectives.computeIfAbsent(op.seq(), seq -> new CallMeeting<>(this, collectiveName(seq), size));
        }
        try {
            List<Launched> all = rv.arrive(rank, op, ops -> CallAgreement.check(ops, config.capabilities().mtlinkSharp()));
            try {
                Movement.run(rank, all, rv);
            } catch (RuntimeException | Error e) {
                rv.fail(rank, e);
                throw e;
            }
        } finally {
            rv.depart(() -> collectives.remove(op.seq()));
        }
    }

    /**
     * Rank {@code rank}'s part of window registration (or deregistration) number {@code seq}, on a host thread:
     * meets the other ranks' calls and returns them all, indexed by rank, once they agree (R12).
     */
    List<WindowArrival> windowCall(int rank, long seq, WindowArrival arrival) {
        CallMeeting<WindowArrival> rv;
        synchronized (this) {
            rv = windows.computeIfAbsent(seq, s -> new CallMeeting<>(this, windowCallName(s), size));
        }
        try {
            return rv.arrive(rank, arrival, WindowArrival::check);
        } finally {
            rv.depart(() -> windows.remove(seq));
        }
    }

    static String windowCallName(long seq) {
        return "window registration call #" + seq;
    }

    static String collectiveName(long seq) {
        return "collective call #" + seq;
    }

    /**
     * Posts rank {@code rank}'s send or recv without blocking (a group posts all of its before waiting for any);
     * the returned wait ends once the pair's data has moved, and fails as the pair failed.
     */
    Runnable post(int rank, Launched op) {
        PointToPoint.Pair pair = pointToPoint.post(rank, op);
        return () -> pointToPoint.await(rank, pair);
    }

    /** Rank {@code rank}'s communicator closes, its streams drained: nothing to do when the ranks are threads. */
    void leave(int rank) {
    }

    /**
     * {@code ncclCommAbort}/{@code mcclCommAbort}: every pending and later call on this communicator fails on every
     * rank.
     */
    synchronized void abort(String reason) {
        if (abortReason == null) {
            abortReason = reason;
            notifyAll();
        }
    }

    synchronized boolean isAborted() {
        return abortReason != null;
    }

    /** Fails if the communicator was aborted. */
    synchronized void requireNotAborted(int rank, String call) {
        if (abortReason != null) {
            throw aborted(rank, call);
        }
    }

    private CollectivesException aborted(int rank, String call) {
        return CollectivesException.library(Result.REMOTE_ERROR, rank, call, "the communicator was aborted ("
                + abortReason + ")");
    }

    /**
     * Waits, with this monitor held, until {@code done} holds. Past {@code deadline} (System.nanoTime) it runs
     * {@code onTimeout} once, wakes the others and returns; an abort fails the wait.
     */
    void await(int rank, BooleanSupplier done, long deadline, Runnable onTimeout) {
        boolean interrupted = false;
        try {
            while (!done.getAsBoolean()) {
                if (abortReason != null) {
                    throw aborted(rank, "waiting for the other ranks");
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    onTimeout.run();
                    notifyAll();
                    return;
                }
                try {
                    wait(Math.max(1, remaining / 1_000_000), 0);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
