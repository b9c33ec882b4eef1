package dev.collectives.runtime.bootstrap;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Where the ranks of a watched job said they timed out waiting in the library, and rank 0's verdict on it: the
 * ranks that never arrived where the others waited, or that every rank waited (they called different collectives).
 * Guarded by rank 0's lock.
 */
final class StallVerdict {
    /** What a rank's stall makes due. */
    enum Due {
        NOTHING,
        VERDICT_NOW,
        VERDICT_AFTER_GRACE
    }

    private final int size;
    /** Where each rank said it stalled; null for the others. */
    private final String[] stalls;
    /** Whether the verdict is due (after the first stall). */
    private boolean due;

    StallVerdict(int size) {
        this.size = size;
        this.stalls = new String[size];
    }

    /**
     * Rank {@code rank} stalled at {@code where}; {@code left} says which ranks left the job. The verdict is due now
     * once every rank still in the job stalled, else a grace after the first stall.
     */
    Due stalled(int rank, String where, IntPredicate left) {
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
    String verdict(IntPredicate left) {
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
            return "every rank timed out waiting in the library (" + where + "): the ranks called different "
                    + "collectives, in another order or with other sizes";
        }
        return "ranks " + absent + " did not arrive at the collective that ranks " + waited + " waited in (" + where
                + "): they never called it, or are stuck before it";
    }
}
