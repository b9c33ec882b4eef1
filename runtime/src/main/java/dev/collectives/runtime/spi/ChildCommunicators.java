package dev.collectives.runtime.spi;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * The children that one communicator made with {@link Communicator#split} or {@link Communicator#shrink} and that
 * are still open, so that closing the parent closes them first, newest first; and the argument checks both calls
 * share on every backend.
 */
public final class ChildCommunicators {
    private final Deque<Communicator> open = new ArrayDeque<>();

    /** Remembers {@code child} until it closes ({@link #forget}); returns it. */
    public synchronized <C extends Communicator> C adopt(C child) {
        open.push(child);
        return child;
    }

    /** {@code child} closed. */
    public synchronized void forget(Communicator child) {
        open.remove(child);
    }

    /**
     * Closes every open child, newest first, then runs {@code closeParent} even if a child failed to close; throws
     * the first failure, the others suppressed.
     */
    public void closeChildrenThen(Runnable closeParent) {
        List<Communicator> children;
        synchronized (this) {
            children = new ArrayList<>(open);
        }
        CollectivesException failure = null;
        for (Communicator child : children) {
            failure = closeCollecting(child::close, failure);
        }
        failure = closeCollecting(closeParent, failure);
        if (failure != null) {
            throw failure;
        }
    }

    private static CollectivesException closeCollecting(Runnable close, CollectivesException earlier) {
        try {
            close.run();
            return earlier;
        } catch (CollectivesException e) {
            if (earlier == null) {
                return e;
            }
            earlier.addSuppressed(e);
            return earlier;
        }
    }

    /** Refuses a color that is neither 0 or more nor {@link Communicator#NO_COLOR}. */
    public static void requireColor(int rank, int color) {
        if (color < 0 && color != Communicator.NO_COLOR) {
            throw CollectivesException.usage(
                    rank,
                    "split: color " + color + " is negative; pass 0 or more, or"
                            + " Communicator.NO_COLOR to join no child");
        }
    }

    /**
     * {@code excludedRanks} of a shrink by rank {@code rank} of {@code size}, sorted: each a rank of the
     * communicator, none twice, not the caller (an excluded rank does not call shrink).
     */
    public static int[] excludedRanks(int rank, int size, int... excludedRanks) {
        int[] sorted = excludedRanks.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            int excluded = sorted[i];
            if (excluded < 0 || excluded >= size) {
                throw CollectivesException.usage(
                        rank,
                        "shrink: rank " + excluded + " is not a rank of this" + " communicator of " + size + " ranks");
            }
            if (i > 0 && sorted[i - 1] == excluded) {
                throw CollectivesException.usage(rank, "shrink: rank " + excluded + " is excluded twice");
            }
            if (excluded == rank) {
                throw CollectivesException.usage(
                        rank, "shrink: rank " + rank + " excludes itself; an excluded rank" + " does not call shrink");
            }
        }
        return sorted;
    }
}
