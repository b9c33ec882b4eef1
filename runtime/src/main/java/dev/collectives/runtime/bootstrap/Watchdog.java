package dev.collectives.runtime.bootstrap;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Closes a socket when a deadline passes, so that a blocking write, or a read from a peer that trickles bytes,
 * cannot outlive the deadline (socket read timeouts apply to each read, and writes have none).
 */
public final class Watchdog {
    private static final ScheduledThreadPoolExecutor TIMER = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "collectives-bootstrap-watchdog");
        thread.setDaemon(true);
        return thread;
    });

    static {
        TIMER.setRemoveOnCancelPolicy(true);
    }

    private Watchdog() {}

    /** Closes {@code resource} at {@code deadline} unless the returned guard is closed first. */
    public static Guard closeAt(Closeable resource, Deadline deadline) {
        Guard guard = new Guard();
        guard.task = TIMER.schedule(
                () -> {
                    guard.fired = true;
                    try {
                        resource.close();
                    } catch (IOException ignored) {
                        // the owner sees the closed socket and reports the deadline
                    }
                },
                deadline.remainingMillis(),
                TimeUnit.MILLISECONDS);
        return guard;
    }

    /** Cancels the close when the guarded step finishes in time. */
    public static final class Guard implements AutoCloseable {
        private ScheduledFuture<?> task;
        private volatile boolean fired;

        /** Whether the deadline passed and the resource was closed. */
        public boolean fired() {
            return fired;
        }

        @Override
        public void close() {
            task.cancel(false);
        }
    }
}
