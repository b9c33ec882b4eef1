package dev.collectives.spark;

import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.Stream;
import java.lang.System.Logger.Level;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.BarrierTaskContext;

/**
 * A task's rank, joined: the backend's {@link JoinedRank}, watched for Spark killing the task. When a task of the
 * barrier stage fails, Spark kills the others without interrupting them (their threads may be inside a collective
 * that waits for the failed rank, which only an abort ends); the watch sees the kill and aborts this rank's
 * communicator, so that its pending and later calls fail at once.
 */
final class SparkRank implements JoinedRank {
    private static final System.Logger LOG = System.getLogger("dev.collectives.spark");
    /** How often a joined task is checked for a kill: Spark's own barrier wait checks once a second. */
    private static final long WATCH_MILLIS = 100;

    private static final ScheduledExecutorService WATCH = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "collectives-spark-kill-watch");
        t.setDaemon(true);
        return t;
    });

    private final JoinedRank joined;
    private final String stage;
    private ScheduledFuture<?> watch;
    /** Guarded by this: an abort never reaches a communicator that close() has begun to destroy. */
    private boolean aborted;

    private boolean closed;

    private SparkRank(String stage, JoinedRank joined) {
        this.joined = joined;
        this.stage = stage;
    }

    /** {@code joined}, watched until it closes for Spark killing the task of {@code ctx}. */
    static SparkRank watched(BarrierTaskContext ctx, String stage, JoinedRank joined) {
        SparkRank rank = new SparkRank(stage, joined);
        synchronized (rank) {
            rank.watch = WATCH.scheduleWithFixedDelay(
                    () -> {
                        if (ctx.isInterrupted()) {
                            rank.abortOnKill(ctx.getKillReason().getOrElse(() -> "no reason given"));
                        }
                    },
                    WATCH_MILLIS,
                    WATCH_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
        return rank;
    }

    private synchronized void abortOnKill(String reason) {
        if (aborted || closed) {
            return;
        }
        aborted = true;
        watch.cancel(false);
        LOG.log(
                Level.WARNING,
                () -> "rank " + rank() + ": Spark killed the task of " + stage + " (" + reason
                        + "); aborting its communicator");
        joined.comm().abort();
    }

    @Override
    public Communicator comm() {
        return joined.comm();
    }

    @Override
    public Stream stream() {
        return joined.stream();
    }

    @Override
    public int rank() {
        return joined.rank();
    }

    @Override
    public int size() {
        return joined.size();
    }

    @Override
    public int localRank() {
        return joined.localRank();
    }

    @Override
    public int device() {
        return joined.device();
    }

    /** Stops the watch, then closes the stream and the communicator; idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            watch.cancel(false);
        }
        joined.close();
    }

    @Override
    public String toString() {
        return "rank " + rank() + " of " + size() + " in " + stage + " (local rank " + localRank() + ", device "
                + device() + ")";
    }
}
