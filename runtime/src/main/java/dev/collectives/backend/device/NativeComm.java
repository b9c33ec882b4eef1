package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.spi.FlightRecorder;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.IntSupplier;

/**
 * One communicator's native handle ({@code ncclComm_t}/{@code mcclComm_t}) and the states it goes through: open;
 * aborted, by the user or behind a failure (an asynchronous error, a stall, the job's watch); closed, finalized and
 * destroyed. It owns everything that decides what a failure does to the handle: the asynchronous error, the abort
 * under a deadline, the job watch that names the rank at fault, freeing what the communicator's work used once the
 * abort may have poisoned the device context, and finalize and destroy. Once it is not open, every call that needs
 * the handle fails at once, naming why. A handle another library made ({@link CommOrigin#owned()} false) is never
 * finalized, destroyed or aborted here: its failure states only stop this rank's use of it.
 */
final class NativeComm implements OpenGroups.Member {
    private static final System.Logger LOG = System.getLogger("dev.collectives.device");
    private static final int SHRINK_DEFAULT = 0;
    private static final int SHRINK_ABORT = 1;
    private static final int REVOKE_DEFAULT = 0;

    private enum State {
        OPEN,
        /** Revoked before a shrink: quiesced, refusing work, still holding its resources until destroyed. */
        REVOKED,
        /** Closing: finalize waits for the peers, and an abort may still end it. */
        FINALIZING,
        ABORTED,
        CLOSED
    }

    private final NativeLibrary library;
    private final long lib;
    private final long handle;
    private final int rank;
    /** Whether this library made the handle, and so finalizes, destroys and aborts it. */
    private final boolean owned;
    /** The communicator, as messages name it: "nccl rank 1/2 on device 0". */
    private final String name;

    private final Waits waits;
    /** The communicator's flight recorder, told of its abort and shown where a stall is reported. */
    private final FlightRecorder recorder;

    private final Object stateLock = new Object();
    /**
     * Held shared by every native call on the handle, from its check that the communicator is open to its return;
     * an abort takes it exclusively, once the communicator is marked aborted, before the library's abort starts: so
     * no call runs on a handle that the abort frees, and calls never wait for each other (not fair: a call does not
     * queue behind another).
     */
    private final ReentrantReadWriteLock handleCalls = new ReentrantReadWriteLock();

    private final int[] asyncError = new int[1];
    /** Memory, registrations and windows made through the communicator and not yet closed. */
    private final Set<Object> live = ConcurrentHashMap.newKeySet();
    /** Threads waiting on the library for this communicator ({@link #await}), which an abort wakes at once. */
    private final Set<Thread> waiters = ConcurrentHashMap.newKeySet();

    private volatile State state = State.OPEN;
    /** When it was aborted ({@link System#nanoTime()}): when this rank heard of a failure, or called abort; 0 before. */
    private volatile long abortedNanos;
    /** What the communicator's work used, freed once its abort allows. */
    private final FreesAfterAbort frees;
    /** Its part of the job's watch, where its job was joined through a TCP rendezvous. */
    private final CommJob job;

    NativeComm(
            NativeLibrary library,
            long handle,
            int rank,
            boolean owned,
            String name,
            Waits waits,
            FlightRecorder recorder) {
        this.library = library;
        this.lib = library.lib;
        this.handle = handle;
        this.rank = rank;
        this.owned = owned;
        this.name = name;
        this.waits = waits;
        this.recorder = recorder;
        this.frees = new FreesAfterAbort(library, rank, owned, name, waits, this::isAborted);
        this.job = new CommJob(rank, this::abortBehind);
    }

    NativeLibrary library() {
        return library;
    }

    int rank() {
        return rank;
    }

    /** The native handle; valid only while {@link #requireOpen} passes. */
    long handle() {
        return handle;
    }

    Waits waits() {
        return waits;
    }

    /** Its part of the job's watch. */
    CommJob job() {
        return job;
    }

    /** What its work used: freed after an abort only once it is safe, or at once ({@link FreesAfterAbort}). */
    FreesAfterAbort frees() {
        return frees;
    }

    void track(Object resource) {
        live.add(resource);
    }

    void untrack(Object resource) {
        live.remove(resource);
    }

    // ---- failures ---------------------------------------------------------------------------------------------

    /**
     * Throws the communicator's asynchronous error, if any, or that it was aborted or closed. A communicator with an
     * asynchronous error (a peer died, the network failed) cannot finish its work or be finalized: it is aborted
     * first, which frees what the library holds for it.
     */
    void checkAsyncError() {
        int error;
        synchronized (stateLock) {
            requireOpen();
            error = asyncErrorCode();
        }
        if (isFailure(error)) {
            throw failedAsynchronously(error, library.dialect.ccl("CommGetAsyncError") + " (an enqueued operation)");
        }
    }

    /** The failure {@code error} of {@code call} that the library reported later; aborts the communicator behind. */
    private CollectivesException failedAsynchronously(int error, String call) {
        CollectivesException failure = library.cclFailure(
                error,
                rank,
                handle,
                call,
                "; " + aborted()
                        + job.watched()
                                .cause()
                                .map(why -> "; the job failed: " + why)
                                .orElse(""));
        abortBehind();
        return failure;
    }

    // ---- waits on the library ---------------------------------------------------------------------------------

    /**
     * Completes {@code call} (its name as messages give it, e.g. "ncclAllReduce of float"), whose native answer was
     * {@code rc}: success returns; "in progress" (a non-blocking communicator still working on it) waits until the
     * communicator has finished it; any other code throws naming it. A failure reported while waiting aborts the
     * communicator behind, as an asynchronous error does.
     */
    @Override
    public void complete(int rc, String call) {
        if (rc == InProgress.CODE) {
            int state = await(call, () -> pollWhileWanted(call));
            if (state != 0) {
                throw failedAsynchronously(state, call);
            }
        } else if (rc != 0) {
            throw library.cclFailure(rc, rank, handle, call);
        }
    }

    /**
     * Polls {@code state} ({@link InProgress#await}) up to the timeout of {@link #waits()}; an abort of this
     * communicator wakes the waiter at once, and a wait that outlasts the timeout aborts it behind
     * ({@link #stalled}). The last state: 0 done, else the failure.
     */
    int await(String what, IntSupplier state) {
        Thread waiter = Thread.currentThread();
        waiters.add(waiter);
        try {
            return InProgress.await(
                    state, waits, waits.syncTimeoutNanos(), () -> stalled(what, waits.syncTimeoutSeconds()));
        } finally {
            waiters.remove(waiter);
        }
    }

    /** The communicator's state as {@code CommGetAsyncError} says, unless it was aborted: then throws. */
    private int pollWhileWanted(String call) {
        synchronized (stateLock) { // an abort frees the handle: no poll may run once it started
            requireNotAborted(call);
            return asyncErrorCode();
        }
    }

    /** Throws, saying that {@code call} was waiting, once the communicator was aborted. */
    private void requireNotAborted(String call) {
        if (state == State.ABORTED) {
            throw job.failed(call, aborted())
                    .orElseGet(() -> CollectivesException.usage(
                            rank, call + " did not complete: the communicator was aborted while it waited"));
        }
    }

    // ---- calls on the handle ----------------------------------------------------------------------------------

    /**
     * The op numbered {@code kind} ({@link NativeApi#collective}) on the handle, unless the communicator is no longer
     * open: then throws why. An abort does not start while it runs. The library's code.
     */
    int enqueue(int kind, long send, long recv, long count, int type, int op, int peer, long stream) {
        Lock shared = handleCalls.readLock();
        shared.lock();
        try {
            requireOpen();
            OpenGroups.enqueuing(this);
            return library.api.collective(lib, kind, send, recv, count, type, op, peer, handle, stream);
        } finally {
            shared.unlock();
        }
    }

    /** A native call on the handle, which it is given. */
    @FunctionalInterface
    interface HandleCall {
        int on(long handle);
    }

    /**
     * Runs {@code call} on the handle unless the communicator is no longer open, or revoked for the shrink that
     * {@code call} may be (then throws why), so that no abort starts while it runs; its code.
     */
    int onHandle(HandleCall call) {
        Lock shared = handleCalls.readLock();
        shared.lock();
        try {
            if (state != State.REVOKED) {
                requireOpen();
            }
            return call.on(handle);
        } finally {
            shared.unlock();
        }
    }

    /**
     * This rank waited longer than {@code timeoutSeconds} for {@code what} to complete: aborts the communicator
     * behind, and returns the failure to throw, naming the ranks that never arrived where the job's verdict does.
     */
    CollectivesException stalled(String what, long timeoutSeconds) {
        return job.stalled(what, timeoutSeconds, recorder.position(), aborted());
    }

    /** What became of the communicator once this rank gave up on it. */
    private String aborted() {
        return owned
                ? "the communicator was aborted"
                : "this rank stopped using the communicator, which the library that made it must abort";
    }

    /** {@code CommGetAsyncError}'s code, called holding {@link #stateLock}: an abort, which frees the handle, waits. */
    private int asyncErrorCode() {
        library.check(library.api.commAsyncError(lib, handle, asyncError), rank, handle, "CommGetAsyncError");
        return asyncError[0];
    }

    /** Whether an asynchronous error code says the communicator failed (not success, not still in progress). */
    private static boolean isFailure(int asyncError) {
        return asyncError != 0 && asyncError != Result.IN_PROGRESS.code();
    }

    /** Throws unless open: why the job failed where that aborted it, else its state. */
    void requireOpen() {
        if (state != State.OPEN) {
            throw notOpen();
        }
    }

    private CollectivesException notOpen() {
        return job.failed("the communicator", aborted())
                .filter(failure -> state == State.ABORTED)
                .orElseGet(() -> CollectivesException.usage(
                        rank, "communicator is " + state.name().toLowerCase(Locale.ROOT)));
    }

    boolean isAborted() {
        return state == State.ABORTED;
    }

    /** When it was aborted ({@link System#nanoTime()}), or 0 while it was not. */
    long abortedNanos() {
        return abortedNanos;
    }

    /**
     * {@code CommRevoke} where the library has it: the communicator's work in flight stops and it refuses more, so
     * that a shrink does not wait on a peer that hangs; it is destroyed without finalize when it closes.
     */
    void revokeIfAvailable() {
        if (!library.has(NativeLibrary.Slots.COMM_REVOKE)) {
            return;
        }
        int rc;
        synchronized (stateLock) {
            requireOpen();
            rc = library.api.commRevoke(lib, handle, REVOKE_DEFAULT);
            if (rc == 0 || rc == InProgress.CODE) {
                state = State.REVOKED;
            }
        }
        complete(rc, library.dialect.ccl("CommRevoke")); // outside the lock: an abort may end the wait
    }

    /**
     * The flags of a {@code CommShrink} of this communicator: {@code NCCL_SHRINK_ABORT} when it has an asynchronous
     * error (a peer failed), so that the library stops its pending work first.
     */
    int shrinkFlags() {
        synchronized (stateLock) { // an abort is marked under this lock before it starts
            requireOpen();
            return isFailure(asyncErrorCode()) ? SHRINK_ABORT : SHRINK_DEFAULT;
        }
    }

    // ---- abort ------------------------------------------------------------------------------------------------

    /**
     * Aborts the communicator: its operations under way on every thread end, and it is freed. The native abort runs
     * on a thread of its own under {@link AbortWatch}'s deadline; this returns when it has, or at the deadline.
     */
    void abort() {
        if (markAborted()) {
            AbortWatch.Watched watched = owned ? startAbort() : null;
            job.watched()
                    .abort("rank " + rank + " called abort()"); // once this rank's abort started: the peers may go on
            recorder.aborted();
            if (owned) {
                awaitAbort(watched);
            } else {
                frees.abortSettled();
                LOG.log(
                        System.Logger.Level.WARNING,
                        "abort() of " + name + " stops this rank's use of it only: another library made the "
                                + "communicator, and aborts it (" + library.dialect.ccl("CommAbort") + ")");
            }
        }
    }

    /**
     * Aborts the communicator on a thread of its own and returns at once, so that the caller, who met a failure,
     * reports it without waiting for an abort that may block.
     */
    void abortBehind() {
        if (!markAborted()) {
            return;
        }
        if (owned) {
            startAbort();
        } else {
            frees.abortSettled(); // another library aborts what it made: nothing of ours to wait for
        }
    }

    /**
     * Starts the library's abort of a communicator marked aborted, on a thread of its own: once the native calls on
     * the handle that began before the mark have returned ({@link #handleCalls}), since the abort frees the handle.
     */
    private AbortWatch.Watched startAbort() {
        AbortWatch.Watched watched = waits.aborts().start(abortCall(), () -> {
            Lock exclusive = handleCalls.writeLock();
            exclusive.lock(); // the calls that began before the mark return; those after it refuse
            exclusive.unlock();
            return library.api.commAbort(lib, handle);
        });
        settleWith(watched);
        return watched;
    }

    /** Whether an abort waits for calls on the handle to return: what tests wait for to interleave the two. */
    boolean abortAwaitsCalls() {
        return handleCalls.hasQueuedThreads();
    }

    /** Waits for the abort {@code watched} up to its deadline; throws where it failed. */
    private void awaitAbort(AbortWatch.Watched watched) {
        waits.aborts().awaitWithin(watched).ifPresent(rc -> library.check(rc, rank, 0, "CommAbort"));
    }

    /**
     * Marks an open, revoked or finalizing communicator aborted, and wakes the threads waiting on it; whether it was
     * (so the caller is the one to abort it).
     */
    private boolean markAborted() {
        synchronized (stateLock) {
            if (state != State.OPEN && state != State.REVOKED && state != State.FINALIZING) {
                return false;
            }
            state = State.ABORTED;
            abortedNanos = System.nanoTime();
        }
        waiters.forEach(LockSupport::unpark);
        return true;
    }

    /** The abort under way settles when {@code watched} does: it returned, or its deadline passed. */
    private void settleWith(AbortWatch.Watched watched) {
        watched.settled().thenRun(frees::abortSettled);
    }

    private String abortCall() {
        return library.dialect.ccl("CommAbort") + " of " + name;
    }

    // ---- finalize and destroy ---------------------------------------------------------------------------------

    /**
     * Finalizes and destroys the handle, once; refuses while memory, registrations or windows made through it are
     * live. A revoked handle is only destroyed; an aborted handle was freed by the abort, and one another library
     * made stays its own: either is only marked closed. {@code onClosed} runs once, before the native calls. The
     * finalize holds no lock an abort needs to be marked, so that an abort (the user's, the job watch's) ends a
     * non-blocking communicator's wait for the peers: the close then fails saying so. A blocking communicator's
     * finalize is one native call that waits for the peers: an abort marked meanwhile starts the library's abort
     * only once it has returned, since the abort frees the handle it runs on.
     */
    void finalizeAndDestroy(Runnable onClosed) {
        synchronized (stateLock) {
            if (state == State.CLOSED || state == State.FINALIZING) {
                return;
            }
            boolean revoked = state == State.REVOKED;
            if ((state == State.OPEN || revoked) && !live.isEmpty()) {
                throw CollectivesException.usage(rank, "close the communicator's resources first: " + live);
            }
            boolean finalize = state == State.OPEN && owned;
            state = finalize ? State.FINALIZING : State.CLOSED;
            onClosed.run();
            if (revoked && owned) {
                // a revoked communicator is destroyed without finalize, which the library does not support then
                library.check(library.api.commDestroy(lib, handle), rank, 0, "CommDestroy");
            }
            if (!finalize) {
                return;
            }
        }
        try {
            complete(finalizeUnlessAborted(), library.dialect.ccl("CommFinalize"));
        } catch (CollectivesException e) {
            // a communicator that cannot be finalized is aborted, so that its resources are freed anyway
            if (markAborted()) {
                awaitAbort(startAbort());
            }
            synchronized (stateLock) {
                state = State.CLOSED;
            }
            throw e;
        }
        synchronized (stateLock) {
            if (state == State.ABORTED) { // an abort came during the finalize: it frees the communicator
                state = State.CLOSED;
                return;
            }
            state = State.CLOSED;
            library.check(library.api.commDestroy(lib, handle), rank, 0, "CommDestroy");
        }
    }

    /** {@code CommFinalize}'s code (at once where non-blocking: the wait follows), or 0 where an abort came first. */
    private int finalizeUnlessAborted() {
        Lock shared = handleCalls.readLock();
        shared.lock();
        try {
            return state == State.FINALIZING ? library.api.commFinalize(lib, handle) : 0;
        } finally {
            shared.unlock();
        }
    }

    /**
     * Leaves the job's watch once the communicator is gone (closed or aborted), so that a peer failing before is
     * named; the last communicator of the job on this rank leaves the job.
     */
    void leaveJobIfEnded() {
        if (state == State.CLOSED || state == State.ABORTED) {
            job.watched().leave();
        }
    }
}
