package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Timeouts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Where the ranks of a watched job said they timed out waiting in the library, and the server's verdict on it (rank
 * 0's, or a {@link JobServer}'s): the ranks that never arrived where the others waited, or that every rank
 * waited (they called different collectives). The verdict ends the job once every rank still in it stalled, or
 * a grace ({@link Timeouts#stallGrace()}) after the first did. Owned by the server's loop thread.
 */
final class StallVerdict {
    /**
     * How long after the first rank of a watched job stalls the others may take to say they stall too: those that
     * have not by then are named as the ranks that never arrived.
     */
    private final Duration grace;

    /** What a rank's stall makes due. */
    private enum Due {
        NOTHING,
        VERDICT_NOW,
        VERDICT_AFTER_GRACE
    }

    private int size;
    /** Which ranks left the job. */
    private final IntPredicate left;

    private final ServerLoop loop;
    /** Ends the job with the verdict (once: a job that ended already stays as it ended). */
    private final Consumer<Cause> endJob;
    /** Where each rank said it stalled; null for the others. */
    private String[] stalls;
    /** Whether the verdict is due (after the first stall). */
    private boolean due;

    StallVerdict(int size, Duration grace, IntPredicate left, ServerLoop loop, Consumer<Cause> endJob) {
        this.size = size;
        this.grace = grace;
        this.left = left;
        this.loop = loop;
        this.endJob = endJob;
        this.stalls = new String[size];
    }

    /** The job grew to {@code newSize} ranks. */
    void grow(int newSize) {
        stalls = Arrays.copyOf(stalls, newSize);
        size = newSize;
    }

    /** Rank {@code rank} timed out waiting at {@code where}: the verdict ends the job once it is due. */
    void stalled(int rank, String where) {
        Due due = record(rank, where);
        if (due == Due.VERDICT_NOW) {
            endJob.accept(verdictNow());
        } else if (due == Due.VERDICT_AFTER_GRACE) {
            loop.after(grace, () -> endJob.accept(verdictNow()));
        }
    }

    /** The verdict is due now once every rank still in the job stalled, else a grace after the first stall. */
    private Due record(int rank, String where) {
        if (stalls[rank] != null) {
            return Due.NOTHING;
        }
        stalls[rank] = where;
        boolean first = !due;
        due = true;
        if (IntStream.range(0, size).allMatch(r -> stalls[r] != null || left.test(r))) {
            return Due.VERDICT_NOW;
        }
        return first ? Due.VERDICT_AFTER_GRACE : Due.NOTHING;
    }

    /** Which ranks never arrived where the others stalled, or that every rank stalled. */
    private Cause verdictNow() {
        List<Integer> waited =
                IntStream.range(0, size).filter(r -> stalls[r] != null).boxed().collect(Collectors.toList());
        List<Integer> absent = IntStream.range(0, size)
                .filter(r -> stalls[r] == null && !left.test(r))
                .boxed()
                .collect(Collectors.toList());
        Map<String, List<Integer>> ranksByWhere = new LinkedHashMap<>();
        waited.forEach(r ->
                ranksByWhere.computeIfAbsent(stalls[r], w -> new ArrayList<>()).add(r));
        String where = ranksByWhere.size() == 1
                ? "each " + stalls[waited.get(0)]
                : ranksByWhere.entrySet().stream()
                        .map(e -> (e.getValue().size() == 1
                                        ? "rank " + e.getValue().get(0)
                                        : "ranks " + e.getValue()) + ": " + e.getKey())
                        .collect(Collectors.joining("; "));
        if (absent.isEmpty()) {
            return Cause.of(
                    Cause.Kind.DIVERGED,
                    "every rank timed out waiting in the library (" + where + "): the ranks called different "
                            + "collectives, in another order or with other sizes");
        }
        return Cause.of(
                Cause.Kind.NEVER_ARRIVED,
                "ranks " + absent + " did not arrive at the collective that ranks " + waited + " waited in (" + where
                        + "): they never called it, or are stuck before it",
                absent.stream().mapToInt(Integer::intValue).toArray());
    }
}
