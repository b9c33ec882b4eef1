package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.bootstrap.Rendezvous;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The job a joined communicator belongs to, watched through the rendezvous its ranks met at, which stays open while
 * the communicator lives where it can watch (a TCP one). The library itself says only that a peer failed ("remote
 * process exited"), and nothing of a rank that never calls: the rendezvous names the rank and the cause, and its
 * news reaches this rank as it happens, also while it waits inside the library, which {@code onFailure} then
 * aborts. A rank that times out waiting says so, and the job's verdict names the ranks that never arrived.
 */
final class JobWatch implements AutoCloseable {
    /** A communicator whose job is not watched: made by a split or shrink, or joined through a file rendezvous. */
    static final JobWatch NONE = new JobWatch(null);
    /**
     * How long a rank whose library reported a failure waits for the rendezvous to name its cause: rank 0 hears of a
     * dead process when its connection ends, which is as soon as the library does, or sooner.
     */
    static final Duration CAUSE_WAIT = Duration.ofMillis(500);
    /** How long a rank that stalled waits for the verdict: the others have some seconds to stall too. */
    static final Duration VERDICT_WAIT = Duration.ofSeconds(4);
    /**
     * How long a shrink of an aborted communicator waits for the job's news of the death it recovers from: the
     * library may have seen it first, and nothing is lost by waiting for rank 0 to tell it.
     */
    static final Duration DEATH_WAIT = Duration.ofSeconds(4);

    private final Rendezvous rendezvous;
    private final CountDownLatch failed = new CountDownLatch(1);
    private volatile String failure;
    /** Whether the job passed to a communicator formed with replacements, which leaves it when it closes. */
    private volatile boolean handedOver;

    private JobWatch(Rendezvous rendezvous) {
        this.rendezvous = rendezvous;
    }

    /**
     * Watches the job through {@code rendezvous}, running {@code onFailure} once on the rendezvous's thread when it
     * fails; where the rendezvous cannot watch, closes it and returns {@link #NONE}.
     */
    static JobWatch start(Rendezvous rendezvous, Runnable onFailure) {
        JobWatch watch = new JobWatch(rendezvous);
        boolean watching = false;
        try {
            watching = rendezvous.watch(reason -> watch.failed(reason, onFailure));
        } finally {
            if (!watching) {
                rendezvous.close();
            }
        }
        return watching ? watch : NONE;
    }

    private void failed(String reason, Runnable onFailure) {
        if (failure == null) {
            failure = reason;
            failed.countDown();
            onFailure.run();
        }
    }

    /** Why the job failed, once the rendezvous said so. */
    Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /**
     * Why the job failed, waiting for it at most {@link #CAUSE_WAIT}: the library reported a failure that the
     * rendezvous may be about to name.
     */
    Optional<String> cause() {
        return awaitFailure(CAUSE_WAIT);
    }

    /** Why the job failed, waiting for it at most {@link #DEATH_WAIT}: a shrink recovers from that death. */
    Optional<String> death() {
        return awaitFailure(DEATH_WAIT);
    }

    /**
     * This rank timed out waiting at {@code where}: tells the job, and returns its verdict once rank 0 has given it
     * (at most {@link #VERDICT_WAIT}).
     */
    Optional<String> stalled(String where) {
        if (rendezvous == null) {
            return Optional.empty();
        }
        rendezvous.stalled(where);
        return awaitFailure(VERDICT_WAIT);
    }

    private Optional<String> awaitFailure(Duration wait) {
        if (rendezvous == null) {
            return failure();
        }
        try {
            failed.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return failure();
    }

    /**
     * Lets the survivors of the death the watch heard of meet again through the job's rendezvous, which it returns;
     * throws why they cannot, after {@code refused} (the start of the message, e.g. "shrink: ...").
     */
    Rendezvous resumeAmongSurvivors(int rank, String refused) {
        if (rendezvous == null) {
            throw CollectivesException.usage(
                    rank,
                    refused + "; the survivors form a new communicator through the job's tcp:// rendezvous, and this "
                            + "communicator has none (its ranks are threads of one process, it is a child of split or "
                            + "shrink, or its job met through a file rendezvous)");
        }
        Optional<String> why = rendezvous.resumeAmongSurvivors();
        if (why.isPresent()) {
            throw CollectivesException.usage(
                    rank,
                    refused + "; the survivors cannot form a new communicator through the job's rendezvous at "
                            + rendezvous.where() + ": " + why.get());
        }
        return rendezvous;
    }

    /** This rank ends the job: the others hear {@code reason} with this rank's number. */
    void abort(String reason) {
        if (rendezvous != null) {
            rendezvous.abort(reason);
        }
    }

    /** The job passes to the communicator the survivors formed with the replacements of the dead ranks. */
    void handOver() {
        handedOver = true;
    }

    /** Leaves the job, saying so (after the communicator is gone), unless it was handed over; idempotent. */
    @Override
    public void close() {
        if (rendezvous != null && !handedOver) {
            rendezvous.close();
        }
    }
}
