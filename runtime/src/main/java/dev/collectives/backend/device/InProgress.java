package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The one wait of this backend on work the library has not finished: a call on a non-blocking communicator that
 * answered {@code ncclInProgress} (init, split, shrink, finalize, registration, windows, a collective,
 * {@code GroupEnd}), or a stream still running. It polls the state, parking between polls for an interval that
 * grows (never spinning), until the state is no longer in progress or the deadline passes. Whoever polls decides
 * what ends the wait early: a poll that throws (the communicator was aborted) ends it at once, and an abort unparks
 * its waiters ({@link NativeComm#abort}).
 */
final class InProgress {
    /** {@code ncclInProgress}: the communicator is still working on the call. */
    static final int CODE = Result.IN_PROGRESS.code();

    private static final long FIRST_PARK_NANOS = 1_000L;
    private static final long LONGEST_PARK_NANOS = 10_000_000L;

    private InProgress() {}

    /**
     * Polls {@code state} until it answers something other than {@link #CODE}, and returns that; throws what
     * {@code timedOut} makes once {@code timeoutNanos} have passed on {@code waits}' clock. An interrupt does not end
     * the wait (the deadline does); the thread's interrupt status is kept.
     */
    static int await(IntSupplier state, Waits waits, long timeoutNanos, Supplier<RuntimeException> timedOut) {
        long start = waits.clock().getAsLong();
        long park = FIRST_PARK_NANOS;
        boolean interrupted = false;
        try {
            while (true) {
                int now = state.getAsInt();
                if (now != CODE) {
                    return now;
                }
                if (waits.clock().getAsLong() - start > timeoutNanos) {
                    throw timedOut.get();
                }
                LockSupport.parkNanos(park);
                interrupted |= Thread.interrupted(); // else every later park would return at once: a spin
                park = Math.min(park * 2, LONGEST_PARK_NANOS);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits until the communicator {@code comm}, which {@code call} is forming (init, split, shrink), is formed: rank
     * {@code rank} of {@code size} waits up to {@code timeoutNanos} for the others to join it; {@code stillWanted}
     * throws where the wait must end at once (the parent was aborted). A communicator not formed in time, or whose
     * forming failed or was ended, is aborted behind, so that nothing of it is left.
     */
    static void awaitFormed(
            NativeLibrary library,
            long comm,
            String call,
            int rank,
            int size,
            Waits waits,
            long timeoutNanos,
            Runnable stillWanted) {
        int[] error = new int[1];
        int state;
        try {
            state = await(
                    () -> {
                        stillWanted.run();
                        library.check(
                                library.api.commAsyncError(library.lib, comm, error), rank, comm, "CommGetAsyncError");
                        return error[0];
                    },
                    waits,
                    timeoutNanos,
                    () -> CollectivesException.library(
                            Result.IN_PROGRESS, // still in progress at the deadline: not a failure the library saw
                            rank,
                            call,
                            "rank " + rank + " of " + size + " waited " + timeoutNanos / 1_000_000_000L
                                    + " s for every rank to join the communicator, and not all did; the communicator "
                                    + "was aborted"));
        } catch (RuntimeException e) {
            abortUnformed(library, comm, call, waits);
            throw e;
        }
        if (state != 0) {
            CollectivesException failure =
                    library.cclFailure(state, rank, comm, call, "; the communicator was aborted");
            abortUnformed(library, comm, call, waits);
            throw failure;
        }
    }

    /** Aborts a communicator that never formed, behind, under the abort's deadline. */
    private static void abortUnformed(NativeLibrary library, long comm, String call, Waits waits) {
        waits.aborts()
                .start(
                        library.dialect.ccl("CommAbort") + " of a communicator " + call + " did not form",
                        () -> library.api.commAbort(library.lib, comm));
    }
}
