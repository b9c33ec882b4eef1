package dev.collectives.spark;

import dev.collectives.runtime.Gatherer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.BarrierTaskContext;

/**
 * The ranks' gather through the barrier stage's coordinator: {@link BarrierTaskContext#allGather}, whose values are
 * strings (Base64 here). No port or file of this library's is involved.
 *
 * <p>Spark's allgather has no deadline of its own but the application's {@code spark.barrier.sync.timeout} (a year
 * by default), so it runs on a helper thread that this rank stops waiting for at {@code timeout}. Spark offers no
 * way to cancel a pending allgather, and drops it unanswered when the stage ends: a helper that timed out stays
 * parked in Spark's wait unless a lower {@code spark.barrier.sync.timeout} ends it. A task that Spark kills (the
 * stage failed) ends its helper's wait within Spark's own polling, and this rank's with it.
 */
final class BarrierGatherer implements Gatherer {
    private final BarrierTaskContext ctx;
    private final Arrivals arrivals;

    BarrierGatherer(BarrierTaskContext ctx, Arrivals arrivals) {
        this.ctx = ctx;
        this.arrivals = arrivals;
    }

    @Override
    public byte[][] gather(byte[] value, Duration timeout) {
        String mine = Base64.getEncoder().encodeToString(value);
        int number = arrivals.arrive(ctx.partitionId());
        CompletableFuture<String[]> gathered = new CompletableFuture<>();
        Thread helper = new Thread(
                () -> {
                    try {
                        gathered.complete(ctx.allGather(mine));
                    } catch (Throwable e) {
                        gathered.completeExceptionally(e);
                    }
                },
                "collectives-spark-gather-rank-" + ctx.partitionId());
        helper.setDaemon(true);
        helper.start();
        try {
            String[] all = gathered.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return Arrays.stream(all).map(Base64.getDecoder()::decode).toArray(byte[][]::new);
        } catch (TimeoutException e) {
            throw new IllegalStateException(arrivals.late(number, ctx.numPartitions()) + " within "
                    + timeout.toMillis() + " ms: a task that does not call SparkRanks.join, or is stuck before it,"
                    + " holds the others");
        } catch (ExecutionException e) {
            throw new IllegalStateException(ended(e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the other tasks", e);
        }
    }

    /** Spark ended the wait: the stage failed (this task was killed), or spark.barrier.sync.timeout passed. */
    private String ended(Throwable cause) {
        String reason = ctx.isInterrupted() ? ctx.getKillReason().getOrElse(() -> "no reason given") : null;
        return reason != null
                ? "Spark ended the barrier stage: " + reason
                : "Spark's allGather failed: " + cause.getMessage();
    }
}
