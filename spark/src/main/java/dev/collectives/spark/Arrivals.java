package dev.collectives.spark;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkEnv;

/**
 * How many gathers each rank of one barrier stage attempt has entered in this JVM, so that a rank that waited in
 * vain can name the ranks that did not come. In local mode every task of the stage runs here and the names are
 * exact; on a cluster only this executor's tasks are seen.
 *
 * <p>A rank's count outlives its task: a rank that came and has since ended (its own wait timed out first) still
 * took part, and a task that starts after the others ended still finds their counts. The record of a stage attempt
 * goes when all its ranks have ended; one whose task never joins stays until {@value #KEPT_STAGE_ATTEMPTS} newer
 * stage attempts push it out.
 */
final class Arrivals {
    /** The id of the one executor of Spark's local mode, which runs in the driver. */
    private static final String LOCAL_MODE_EXECUTOR = "driver";
    /** How many stage attempts whose ranks have not all ended are remembered: a few ints each. */
    static final int KEPT_STAGE_ATTEMPTS = 64;

    private static final Map<String, Arrivals> BY_STAGE_ATTEMPT = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Arrivals> eldest) {
            return size() > KEPT_STAGE_ATTEMPTS;
        }
    };

    private final String key;
    private final boolean wholeStageHere;
    /** Rank to the number of gathers it has entered. */
    private final Map<Integer, Integer> entered = new TreeMap<>();

    private int ended;

    private Arrivals(String key, boolean wholeStageHere) {
        this.key = key;
        this.wholeStageHere = wholeStageHere;
    }

    /** The arrivals of {@code ctx}'s stage attempt in this JVM. */
    static Arrivals of(BarrierTaskContext ctx) {
        return of(
                ctx.stageId() + "." + ctx.stageAttemptNumber(),
                LOCAL_MODE_EXECUTOR.equals(SparkEnv.get().executorId()));
    }

    /** The arrivals of stage attempt {@code key}; {@code wholeStageHere} when every task of it runs in this JVM. */
    static Arrivals of(String key, boolean wholeStageHere) {
        synchronized (BY_STAGE_ATTEMPT) {
            return BY_STAGE_ATTEMPT.computeIfAbsent(key, k -> new Arrivals(k, wholeStageHere));
        }
    }

    /** {@code rank} enters its next gather; returns that gather's number, from 1. */
    synchronized int arrive(int rank) {
        return entered.merge(rank, 1, Integer::sum);
    }

    /** A task of this stage attempt of {@code size} ranks is over; the record goes once every task's is. */
    void leave(int size) {
        synchronized (BY_STAGE_ATTEMPT) {
            synchronized (this) {
                if (++ended == size) {
                    BY_STAGE_ATTEMPT.remove(key, this);
                }
            }
        }
    }

    /** Who did not enter gather {@code number} of {@code size} ranks: "rank 2 did not take part". */
    synchronized String late(int number, int size) {
        if (!wholeStageHere) {
            return "not every rank took part (of this executor's tasks, "
                    + join(IntStream.range(0, size).filter(r -> entered.getOrDefault(r, 0) >= number)) + " did)";
        }
        String missing = join(IntStream.range(0, size).filter(r -> entered.getOrDefault(r, 0) < number));
        return missing + " did not take part";
    }

    private static String join(IntStream ranks) {
        var names = ranks.mapToObj(Integer::toString).collect(Collectors.toList());
        return (names.size() == 1 ? "rank " : "ranks ") + String.join(", ", names);
    }
}
