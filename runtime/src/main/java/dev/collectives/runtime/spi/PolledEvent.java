package dev.collectives.runtime.spi;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Event;
import dev.collectives.runtime.Result;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * An {@link Event} that backends implement with two calls: {@link #query()} (done yet? throws the
 * communicator's asynchronous error) and {@link #destroyNativeEvent()} (free the native event). Completion is
 * final: once a query said done, the native event is destroyed and every later question is answered without it.
 */
public abstract class PolledEvent implements Event {
    private static final long FIRST_PAUSE_NANOS = 1_000;
    private static final long LONGEST_PAUSE_NANOS = 1_000_000;

    private final int rank;
    private final String name;
    private boolean done;
    private boolean closed;
    private boolean destroyed;
    private CompletableFuture<Void> future;

    /** @param name names the event in messages, e.g. "event on sim-rank-0-stream-1" */
    protected PolledEvent(int rank, String name) {
        this.rank = rank;
        this.name = name;
    }

    /** Whether the work before the record has finished; throws the communicator's asynchronous error. */
    protected abstract boolean query();

    /** Frees the native event; called once. */
    protected abstract void destroyNativeEvent();

    /**
     * For {@code waitFor}: runs {@code enqueueWait} while the native event is certainly live, unless the event
     * was seen done (nothing to wait for then). Throws when it was closed before it was seen done.
     */
    public final synchronized void orderAfter(String call, Runnable enqueueWait) {
        if (done) {
            return;
        }
        requireUsable(call);
        enqueueWait.run();
    }

    private void requireUsable(String call) {
        if (closed) {
            throw CollectivesException.usage(rank, call + ": " + name + " was closed before it was seen done");
        }
    }

    @Override
    public final synchronized boolean isDone() {
        if (done) {
            return true;
        }
        requireUsable("isDone()");
        if (query()) {
            done = true;
            destroyOnce();
        }
        return done;
    }

    @Override
    public final void await(Duration timeout) {
        long start = System.nanoTime();
        long pause = FIRST_PAUSE_NANOS;
        while (!isDone()) {
            if (System.nanoTime() - start > timeout.toNanos()) {
                throw CollectivesException.library(
                        Result.IN_PROGRESS,
                        rank,
                        "await(" + timeout + ") of " + name,
                        "not done within " + timeout.toMillis() + " ms");
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(2 * pause, LONGEST_PAUSE_NANOS);
        }
    }

    @Override
    public final synchronized CompletableFuture<Void> whenDone() {
        if (future == null) {
            future = new CompletableFuture<>();
            EventPoller.watch(this);
        }
        return future;
    }

    /**
     * Called by the poller: settles the future when the event is done or its communicator failed. Returns
     * whether the future is settled, so the poller can forget the event.
     */
    final synchronized boolean pollForFuture() {
        if (future.isDone()) {
            destroyIfClosed();
            return true;
        }
        try {
            if (!isDone()) {
                return false;
            }
            future.complete(null);
        } catch (RuntimeException | Error failure) {
            future.completeExceptionally(failure);
        }
        destroyIfClosed();
        return true;
    }

    /** Frees the native event now, or, while the poller still watches it, once its future is settled. */
    @Override
    public final synchronized void close() {
        closed = true;
        if (future == null || future.isDone()) {
            destroyOnce();
        }
    }

    private void destroyIfClosed() {
        if (closed) {
            destroyOnce();
        }
    }

    private void destroyOnce() {
        if (!destroyed) {
            destroyed = true;
            destroyNativeEvent();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
