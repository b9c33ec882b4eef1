package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.bootstrap.Progress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * What the ranks of one communicator share: the rendezvous of collective calls, window registrations, splits and
 * shrinks, the point-to-point channels, the abort flag and the timeout. Its monitor guards all of that state; data moves
 * outside it. Here the ranks are threads of this process; {@link WireGroup} meets ranks in other processes.
 */
class CommGroup {
    /**
     * Adds where a communicator of this group stands ({@code place}) to its rank's heartbeats, where a rendezvous
     * server watches the job; in one process there is none, and the report does nothing.
     */
    Progress.Report reportProgress(Supplier<Progress.Place> place) {
        return () -> {};
    }

    private final int size;
    private final SimConfig config;
    private final Map<Long, CallMeeting<Launched>> collectives = new HashMap<>();
    private final Map<Long, CallMeeting<WindowArrival>> windows = new HashMap<>();
    private final Map<Long, CallMeeting<SplitArrival>> splits = new HashMap<>();
    private final Map<ShrinkKey, Shrinking> shrinks = new HashMap<>();
    private final PointToPoint pointToPoint;
    private String abortReason;
    /** When it was aborted ({@link System#nanoTime()}): when its ranks heard of the failure; 0 before. */
    private long abortedNanos;
    /** Told of each wait for the other ranks: the rank and its deadline (tests see which deadline a call waits to). */
    volatile WaitHook waits = (rank, deadline) -> {};

    /** Sees each wait for the other ranks as it begins. */
    @FunctionalInterface
    interface WaitHook {
        void waiting(int rank, long deadline);
    }

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
     * Rank {@code rank}'s part of a collective call: meet the others by {@code deadline} (System.nanoTime; the
     * step's, which its other ops share), check they agree, move the data together.
     */
    void collective(int rank, Launched op, long deadline) {
        CallMeeting<Launched> rv;
        synchronized (this) {
            rv = collectives.computeIfAbsent(
                    op.seq(),
                    seq -> new CallMeeting<>(this, op.collectiveName(), Launched::collectiveName, size, new BitSet()));
        }
        try {
            List<Launched> all = rv.arrive(
                    rank,
                    op,
                    ops -> CallAgreement.check(ops, config.capabilities().mtlinkSharp()),
                    deadline);
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

    /**
     * Rank {@code rank}'s part of split call number {@code seq}: meets every rank's color and key, and the last rank
     * to arrive forms one child group per color. Empty for {@link Communicator#NO_COLOR}.
     */
    Optional<Member> split(int rank, long seq, int color, int key) {
        CallMeeting<SplitArrival> rv;
        synchronized (this) {
            rv = splits.computeIfAbsent(seq, s -> new CallMeeting<>(this, "split call #" + s, size));
        }
        SplitArrival mine = new SplitArrival(color, key);
        try {
            rv.arrive(rank, mine, this::formChildren);
        } finally {
            rv.depart(() -> splits.remove(seq));
        }
        return Optional.ofNullable(mine.member);
    }

    /** Gives each arrival its place in the child of its color, ranked by key, then by rank here. */
    private CallVerdict formChildren(List<SplitArrival> all) {
        for (List<Integer> members : childrenByColor(all).values()) {
            CommGroup child = new CommGroup(childConfig(members));
            for (int childRank = 0; childRank < members.size(); childRank++) {
                all.get(members.get(childRank)).member = new Member(child, childRank);
            }
        }
        return null;
    }

    /** The ranks (here) of each color's child, in the child's order: by key, then by rank here. */
    static Map<Integer, List<Integer>> childrenByColor(List<SplitArrival> all) {
        Map<Integer, List<Integer>> byColor = new TreeMap<>();
        for (int r = 0; r < all.size(); r++) {
            if (all.get(r).color != Communicator.NO_COLOR) {
                byColor.computeIfAbsent(all.get(r).color, c -> new ArrayList<>())
                        .add(r);
            }
        }
        byColor.values()
                .forEach(members -> members.sort(
                        Comparator.comparingInt((Integer r) -> all.get(r).key).thenComparingInt(r -> r)));
        return byColor;
    }

    /**
     * Rank {@code rank}'s part of shrink call number {@code seq}, which excludes {@code excluded} (sorted): meets the
     * other survivors only, on the child's monitor, so that neither the excluded ranks nor an abort of this group
     * hold it up. Survivors that exclude different ranks meet in different calls, and time out naming who is missing.
     */
    Member shrink(int rank, long seq, int[] excluded) {
        ShrinkKey key = new ShrinkKey(seq, Arrays.stream(excluded).boxed().collect(Collectors.toList()));
        Shrinking shrinking;
        synchronized (this) {
            shrinking = shrinks.computeIfAbsent(key, this::startShrink);
        }
        try {
            shrinking.meeting.arrive(rank, rank, all -> null);
        } finally {
            shrinking.meeting.depart(() -> {
                synchronized (this) {
                    shrinks.remove(key);
                }
            });
        }
        return new Member(shrinking.child, shrinking.survivors.indexOf(rank));
    }

    private Shrinking startShrink(ShrinkKey key) {
        BitSet excused = new BitSet(size);
        key.excluded.forEach(excused::set);
        List<Integer> survivors = survivors(size, excused);
        CommGroup child = new CommGroup(childConfig(survivors));
        String what = "shrink call #" + key.seq + " (excluding ranks " + key.excluded + ")";
        return new Shrinking(child, survivors, new CallMeeting<>(child, what, size, excused));
    }

    /** The ranks of {@code size} that are not {@code excused}, in order. */
    static List<Integer> survivors(int size, BitSet excused) {
        List<Integer> survivors = new ArrayList<>();
        for (int r = excused.nextClearBit(0); r < size; r = excused.nextClearBit(r + 1)) {
            survivors.add(r);
        }
        return survivors;
    }

    /**
     * The settings of a child of {@code members} (ranks here, in the child's order). A sim topology has as many ranks
     * on every node: the child gets the most it has on one node, so that R8 (one rank per node) holds for it exactly
     * when none of its nodes holds two of its ranks.
     */
    SimConfig childConfig(List<Integer> members) {
        Function<Integer, Integer> nodeOf = r -> r / config.ranksPerNode();
        long mostOnANode =
                members.stream().collect(Collectors.groupingBy(nodeOf, Collectors.counting())).values().stream()
                        .mapToLong(Long::longValue)
                        .max()
                        .orElse(1);
        return config.child(members.size(), (int) mostOnANode);
    }

    static String windowCallName(long seq) {
        return "window registration call #" + seq;
    }

    /** A collective as a rank's failures name it: by its flight-recorder entry {@code entry} on that rank. */
    static String collectiveName(long entry) {
        return "collective call #" + entry;
    }

    /**
     * Posts rank {@code rank}'s send or recv without blocking (a group posts all of its before waiting for any);
     * the returned wait ends once the pair's data has moved, and fails as the pair failed or where the peer did not
     * post its side by {@code deadline} (System.nanoTime).
     */
    Runnable post(int rank, Launched op, long deadline) {
        PointToPoint.Pair pair = pointToPoint.post(rank, op, deadline);
        return () -> pointToPoint.await(rank, op, pair);
    }

    /** Rank {@code rank}'s communicator closes, its streams drained: nothing to do when the ranks are threads. */
    void leave(int rank) {}

    /**
     * {@code ncclCommAbort}/{@code mcclCommAbort}: every pending and later call on this communicator fails on every
     * rank.
     */
    synchronized void abort(String reason) {
        if (abortReason == null) {
            abortReason = reason;
            abortedNanos = System.nanoTime();
            notifyAll();
        }
    }

    /** When it was aborted ({@link System#nanoTime()}), or 0 while it was not. */
    synchronized long abortedNanos() {
        return abortedNanos;
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
        return CollectivesException.library(
                Result.REMOTE_ERROR, rank, call, "the communicator was aborted (" + abortReason + ")");
    }

    /**
     * Waits, with this monitor held, until {@code done} holds. Past {@code deadline} (System.nanoTime) it runs
     * {@code onTimeout} once, wakes the others and returns; an abort fails the wait.
     */
    void await(int rank, BooleanSupplier done, long deadline, Runnable onTimeout) {
        await(rank, done, deadline, onTimeout, true);
    }

    /** As {@link #await(int, BooleanSupplier, long, Runnable)}; an abort fails the wait only if {@code abortable}. */
    void await(int rank, BooleanSupplier done, long deadline, Runnable onTimeout, boolean abortable) {
        waits.waiting(rank, deadline);
        boolean interrupted = false;
        try {
            while (!done.getAsBoolean()) {
                if (abortable && abortReason != null) {
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

    /** A rank's place in a child communicator: the child's group and its rank there. */
    record Member(CommGroup group, int rank) {}

    /** What a rank passed to split; {@code member} is set, under this group's monitor, once the children formed. */
    static final class SplitArrival {
        final int color;
        final int key;
        Member member;

        SplitArrival(int color, int key) {
            this.color = color;
            this.key = key;
        }
    }

    /** A shrink call: its number on each survivor, and the ranks it excludes. */
    private record ShrinkKey(long seq, List<Integer> excluded) {}

    /** A shrink under way: the child it makes, its ranks (ranks here, in order), and the survivors' meeting. */
    private record Shrinking(CommGroup child, List<Integer> survivors, CallMeeting<Integer> meeting) {}
}
