package dev.collectives.runtime;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A point in a stream's work, made by {@link Stream#record()} ({@code cudaEventRecord}/{@code musaEventRecord}):
 * it is done once all work enqueued on that stream before the record has finished. Another stream can be ordered
 * after it with {@link Stream#waitFor(Event)}. An event frees its native event once it is seen done; close one
 * that may never be seen done.
 */
public interface Event extends AutoCloseable {
    /**
     * Whether the work before the record has finished ({@code cudaEventQuery}); rethrows the communicator's
     * asynchronous error (an abort included) instead of answering while the work is pending.
     */
    boolean isDone();

    /**
     * Waits until the event is done, at most {@code timeout}; throws naming the timeout when it is not done by
     * then, and rethrows the communicator's asynchronous error.
     */
    void await(Duration timeout);

    /**
     * A future completed when the event is done, or failed with the communicator's asynchronous error (an abort
     * included). One shared poller serves every event's future; the same future is returned on every call.
     */
    CompletableFuture<Void> whenDone();

    /** Frees the native event (after its pending future is settled); idempotent. */
    @Override
    void close();
}
