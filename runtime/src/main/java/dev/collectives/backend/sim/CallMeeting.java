package dev.collectives.backend.sim;

import dev.collectives.runtime.Result;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * One collective call (or window registration) met by every rank of a communicator: ranks arrive with what they
 * passed, the last one checks that they agree, and then they run the data movement together, separated by
 * barriers. A rank that never arrives fails the others after the timeout, naming it; a late rank then fails too.
 * Ranks may be excused (those a shrink excludes): the call is met without them.
 * All state is guarded by the {@link CommGroup}'s monitor.
 *
 * <p>A rank that has to wait first spins for a short while, outside the monitor, where every rank has a processor
 * of its own: the others are then most often a few microseconds behind, and a wait on the monitor costs a wake-up
 * through the operating system (tens of microseconds, more than a whole small collective takes).
 */
final class CallMeeting<T> {
    /** How long a waiting rank spins before it sleeps on the monitor. */
    private static final long SPIN_NANOS = 50_000;

    private final CommGroup group;
    private final String what;
    private final Object[] arrivals;
    /** How a rank names the call in its failures, from its arrival: by its own flight-recorder entry, for a collective. */
    private final Function<? super T, String> nameOf;
    /** The ranks not expected: their arrival slots stay empty. */
    private final BitSet excused;
    /** How many ranks arrive: all but the excused. */
    private final int parties;

    private final long deadline;
    /** Whether waiting ranks spin before they sleep: only where every rank can have a processor. */
    private final boolean spin;

    private int arrived;
    /** Volatile, so that a spinning rank sees it change without the monitor. */
    private volatile boolean decided;

    private volatile CallVerdict verdict;
    private int barrierArrivals;
    private volatile long barrierGeneration;
    private int departed;
    /** Scratch addresses, one per rank, for movements that stage data. */
    final long[] scratch;

    CallMeeting(CommGroup group, String what, int size) {
        this(group, what, size, new BitSet());
    }

    CallMeeting(CommGroup group, String what, int size, BitSet excused) {
        this(group, what, arrival -> what, size, excused);
    }

    /**
     * A call every rank names alike in the verdicts they share ({@code what}), but each in its own failures as
     * {@code nameOf} its arrival says.
     */
    CallMeeting(CommGroup group, String what, Function<? super T, String> nameOf, int size, BitSet excused) {
        this.group = group;
        this.what = what;
        this.nameOf = nameOf;
        this.arrivals = new Object[size];
        this.excused = excused;
        this.parties = size - excused.cardinality();
        this.scratch = new long[size];
        this.deadline = System.nanoTime() + group.timeoutNanos();
        this.spin = size <= Runtime.getRuntime().availableProcessors();
    }

    /**
     * Arrives with {@code arrival} and waits for all ranks. The last one applies {@code check} to every rank's
     * arrival; a non-null verdict fails every rank with it. Returns the arrivals, indexed by rank.
     */
    List<T> arrive(int rank, T arrival, Function<List<T>, CallVerdict> check) {
        return arrive(rank, arrival, check, deadline);
    }

    /**
     * As {@link #arrive(int, Object, Function)}, waiting no later than {@code until} (System.nanoTime): the deadline
     * of the step this call is part of, which may have begun before the meeting.
     */
    List<T> arrive(int rank, T arrival, Function<List<T>, CallVerdict> check, long until) {
        synchronized (group) {
            if (decided) {
                throw lateArrival(rank, arrival);
            }
            arrivals[rank] = arrival;
            if (++arrived == parties) {
                verdict = check.apply(all());
                decided = true;
                group.notifyAll();
            }
        }
        spinUntil(() -> decided);
        synchronized (group) {
            group.await(rank, () -> decided, deadline - until < 0 ? deadline : until, () -> {
                decided = true;
                verdict = CallVerdict.timedOut(what, ranks(false), ranks(true), group.timeoutText());
            });
            if (verdict != null) {
                throw verdict.toException(rank, callNameOf(rank));
            }
            return all();
        }
    }

    /** Waits until every rank has reached this barrier; fails if a rank failed during the movement. */
    void barrier(int rank) {
        long generation;
        synchronized (group) {
            if (verdict != null) {
                throw verdict.toException(rank, callNameOf(rank));
            }
            generation = barrierGeneration;
            if (++barrierArrivals == parties) {
                barrierArrivals = 0;
                barrierGeneration++;
                group.notifyAll();
                return;
            }
        }
        spinUntil(() -> barrierGeneration != generation || verdict != null);
        synchronized (group) {
            group.await(
                    rank,
                    () -> barrierGeneration != generation || verdict != null,
                    System.nanoTime() + group.timeoutNanos(),
                    () -> verdict = CallVerdict.error(Result.INTERNAL_ERROR, what, "ranks stopped making progress"));
            if (barrierGeneration == generation) {
                throw verdict.toException(rank, callNameOf(rank));
            }
        }
    }

    /** Spins, without the monitor, until {@code done} or for {@link #SPIN_NANOS}; the caller then waits as usual. */
    private void spinUntil(BooleanSupplier done) {
        if (!spin) {
            return;
        }
        long start = System.nanoTime();
        while (!done.getAsBoolean() && System.nanoTime() - start < SPIN_NANOS) {
            Thread.onSpinWait();
        }
    }

    /** Rank {@code rank} failed while moving data; the others' barriers fail with that. */
    void fail(int rank, Throwable failure) {
        synchronized (group) {
            if (verdict == null) {
                verdict = CallVerdict.error(
                        Result.REMOTE_ERROR, what, "rank " + rank + " failed during the call: " + failure);
                group.notifyAll();
            }
        }
    }

    /** This rank is done with the call; the last one to leave forgets it. */
    void depart(Runnable forget) {
        synchronized (group) {
            if (++departed == parties) {
                forget.run();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private List<T> all() {
        List<T> list = new ArrayList<>(arrivals.length);
        for (Object a : arrivals) {
            list.add((T) a);
        }
        return list;
    }

    private RuntimeException lateArrival(int rank, T arrival) {
        return CallVerdict.lateArrival(what, verdict == null ? "the others already went on" : verdict.message())
                .toException(rank, nameOf.apply(arrival));
    }

    /** How rank {@code rank}, which arrived, names the call. */
    @SuppressWarnings("unchecked")
    private String callNameOf(int rank) {
        return nameOf.apply((T) arrivals[rank]);
    }

    /** The expected ranks that have arrived ({@code arrivedYet}) or not. */
    private List<Integer> ranks(boolean arrivedYet) {
        List<Integer> ranks = new ArrayList<>();
        for (int r = 0; r < arrivals.length; r++) {
            if (!excused.get(r) && (arrivals[r] != null) == arrivedYet) {
                ranks.add(r);
            }
        }
        return ranks;
    }
}
