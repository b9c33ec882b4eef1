package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.runtime.spi.JobRanks;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;

/**
 * One communicator's native handle ({@code ncclComm_t}/{@code mcclComm_t}) and the states it goes through: open;
 * aborted, by the user or behind a failure (an asynchronous error, a stall, the job's watch); closed, finalized and
 * destroyed. It owns everything that decides what a failure does to the handle: the asynchronous error, the abort
 * under a deadline, the job watch that names the rank at fault, freeing what the communicator's work used once the
 * abort may have poisoned the device context, and finalize and destroy. Once it is not open, every call that needs
 * the handle fails at once, naming why. A handle another library made ({@link CommOrigin#owned()} false) is never
 * finalized, destroyed or aborted here: its failure states only stop this rank's use of it.
 */
final class NativeComm {
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
    /** Whether a free after the abort failed and was reported. */
    private final AtomicBoolean freeFailureReported = new AtomicBoolean();
    /** Whether a free after the abort was left undone, a stream still running, and was reported. */
    private final AtomicBoolean busyStreamReported = new AtomicBoolean();
    /** The streams this communicator enqueued work on, still open: after an abort, frees wait until they are idle. */
    private final Set<Long> streams = ConcurrentHashMap.newKeySet();
    /** Threads waiting on the library for this communicator ({@link #await}), which an abort wakes at once. */
    private final Set<Thread> waiters = ConcurrentHashMap.newKeySet();
    /** The communicators that enqueued work in the calling thread's open group, which its GroupEnd completes. */
    private static final ThreadLocal<Group> GROUP = ThreadLocal.withInitial(Group::new);

    private volatile State state = State.OPEN;
    /** When it was aborted ({@link System#nanoTime()}): when this rank heard of a failure, or called abort; 0 before. */
    private volatile long abortedNanos;
    /** Done once the abort has returned or its deadline passed; until then no free may run (see freeResource). */
    private final CompletableFuture<Void> abortSettled = new CompletableFuture<>();
    /** Its part of the job's watch, where its job was joined through a TCP rendezvous. */
    private volatile JobWatch.Watched job = JobWatch.NONE;

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
    }

    NativeLibrary library() {
        return library;
    }

    /** The native handle; valid only while {@link #requireOpen} passes. */
    long handle() {
        return handle;
    }

    Waits waits() {
        return waits;
    }

    /**
     * Keeps {@code rendezvous} open as this communicator's job watch (or closes it, where it cannot watch): a job
     * failure it reports aborts the communicator behind, and every failure this rank meets from then on names it.
     */
    void watchJob(Rendezvous rendezvous, JobRanks ranks) {
        job = JobWatch.start(rendezvous, ranks, this::abortBehind);
    }

    /**
     * Shares {@code parent}'s job watch as its child, whose ranks {@code childOf} tells from the parent's (a split's,
     * a shrink's): news of the job that concerns a rank it holds aborts it behind.
     */
    void watchAsChildOf(NativeComm parent, UnaryOperator<JobRanks> childOf) {
        job = parent.job.child(childOf, this::abortBehind);
    }

    /**
     * The job passes from {@code before} to this communicator, which holds {@code ranks} of the job: the survivors
     * formed it with the replacements of the dead ranks, or the ranks with the processes that joined. This one
     * watches the job, and {@code before} leaves the watch.
     */
    void takeJobOver(NativeComm before, JobRanks ranks) {
        job = before.job.reformed(ranks, this::abortBehind);
        before.job.leave();
    }

    /**
     * The job's rendezvous, no longer watched, through which its ranks grow it; throws why not after {@code refused}
     * ("grow: ..."): a death or the job's end came first, or the job has no tcp:// rendezvous. Where the growth fails,
     * {@link #watchJobAgain}.
     */
    Rendezvous growthRendezvous(String refused) {
        return job.unwatchToGrow(rank, refused);
    }

    /** The growth failed and the job goes on: the job is watched again. */
    void watchJobAgain() {
        job.watchAgain();
    }

    /** Whether the job is watched (joined through a TCP rendezvous). */
    boolean watchesJob() {
        return job != JobWatch.NONE;
    }

    /** The job's ranks this communicator holds, for the survivors of a death to meet; null where not watched. */
    JobRanks jobRanks() {
        return job.ranks();
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
            library.check(library.api.commAsyncError(lib, handle, asyncError), rank, handle, "CommGetAsyncError");
            error = asyncError[0];
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
                        + job.cause().map(why -> "; the job failed: " + why).orElse(""));
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
    void complete(int rc, String call) {
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
            library.check(library.api.commAsyncError(lib, handle, asyncError), rank, handle, "CommGetAsyncError");
            return asyncError[0];
        }
    }

    /** Throws, saying that {@code call} was waiting, once the communicator was aborted. */
    private void requireNotAborted(String call) {
        if (state == State.ABORTED) {
            throw job.failure()
                    .map(why -> CollectivesException.library(
                            Result.REMOTE_ERROR, rank, call, "the job failed: " + why + "; " + aborted()))
                    .orElseGet(() -> CollectivesException.usage(
                            rank, call + " did not complete: the communicator was aborted while it waited"));
        }
    }

    // ---- groups -----------------------------------------------------------------------------------------------

    /** The calling thread's group: how deep, and the communicators that enqueued work in it. */
    private static final class Group {
        int depth;
        final Set<NativeComm> members = new LinkedHashSet<>();
    }

    /** {@code GroupStart} was called on this thread. */
    static void groupStarted() {
        GROUP.get().depth++;
    }

    /**
     * The op numbered {@code kind} ({@link NativeApi#collective}) on the handle, unless the communicator is no longer
     * open: then throws why. An abort does not start while it runs. The library's code.
     */
    int enqueue(int kind, long send, long recv, long count, int type, int op, int peer, long stream) {
        Lock shared = handleCalls.readLock();
        shared.lock();
        try {
            requireOpen();
            enqueuing();
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

    /** This communicator enqueues work on this thread: inside a group, the group's end waits for it. */
    private void enqueuing() {
        Group group = GROUP.get();
        if (group.depth > 0) {
            group.members.add(this);
        }
    }

    /**
     * {@code GroupEnd} answered {@code rc} on this thread, called through this communicator: at the outermost end,
     * "in progress" waits for every communicator that enqueued in the group ({@link #complete}).
     */
    void groupEnded(int rc, String call) {
        Group group = GROUP.get();
        group.depth = Math.max(0, group.depth - 1);
        if (group.depth > 0) {
            complete(rc, call);
            return;
        }
        List<NativeComm> members = new ArrayList<>(group.members);
        group.members.clear();
        if (rc != InProgress.CODE) {
            complete(rc, call);
            return;
        }
        if (members.isEmpty()) {
            members.add(this);
        }
        for (NativeComm member : members) {
            member.complete(rc, call);
        }
    }

    /**
     * This rank waited longer than {@code timeoutSeconds} for {@code what} to complete: aborts the communicator
     * behind, and returns the failure to throw, naming the ranks that never arrived where the job's verdict does.
     */
    CollectivesException stalled(String what, long timeoutSeconds) {
        Optional<String> verdict =
                job.stalled("waited " + timeoutSeconds + " s for " + what + "; " + recorder.position());
        abortBehind();
        return CollectivesException.library(
                Result.REMOTE_ERROR,
                rank,
                what,
                "no "
                        + "completion within " + timeoutSeconds + " s"
                        + verdict.map(why -> "; the job failed: " + why).orElse("") + "; " + aborted());
    }

    /** What became of the communicator once this rank gave up on it. */
    private String aborted() {
        return owned
                ? "the communicator was aborted"
                : "this rank stopped using the communicator, which the library that made it must abort";
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
        return job.failure()
                .filter(why -> state == State.ABORTED)
                .map(why -> CollectivesException.library(
                        Result.REMOTE_ERROR, rank, "the communicator", "the job failed: " + why + "; " + aborted()))
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
     * The job's rendezvous, for the survivors of a death to form a new communicator among them once this one was
     * aborted; throws why they cannot (no rendezvous, the job ended otherwise, rank 0 died, no death reported). The
     * abort may still run: the new communicator forms beside it, since NCCL's abort returns only once its proxy
     * threads, which poll every 500 ms, have seen it (about half a second); what the old one's work used is freed
     * only once the abort has returned ({@link #freeResource}).
     */
    Rendezvous survivorsRendezvous(String call) {
        Optional<String> why = job.death();
        return job.resumeAmongSurvivors(
                rank,
                call + ": the communicator was aborted"
                        + why.map(failure -> " when the job failed (" + failure + ")")
                                .orElse(""));
    }

    /**
     * The job's watch while the survivors of a death form, by {@code call}, the communicator that holds {@code ranks}
     * of the job: a death among them ends the library's wait ({@link JobWatch.Watched#whileForming}).
     */
    JobWatch.Forming whileForming(JobRanks ranks, String call) {
        return job.whileForming(ranks, rank, call);
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
            library.check(library.api.commAsyncError(lib, handle, asyncError), rank, handle, "CommGetAsyncError");
            return isFailure(asyncError[0]) ? SHRINK_ABORT : SHRINK_DEFAULT;
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
            job.abort("rank " + rank + " called abort()"); // once this rank's abort started: the peers may go on
            recorder.aborted();
            if (owned) {
                awaitAbort(watched);
            } else {
                abortSettled.complete(null);
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
            abortSettled.complete(null); // another library aborts what it made: nothing of ours to wait for
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
        watched.settled().thenRun(() -> abortSettled.complete(null));
    }

    private String abortCall() {
        return library.dialect.ccl("CommAbort") + " of " + name;
    }

    /** This communicator enqueued work (an op, a graph's launch) on {@code stream}, until that stream closes. */
    void enqueuedOn(long stream) {
        streams.add(stream);
    }

    /** {@code stream} was destroyed: it is no longer asked whether it is idle. */
    void streamClosed(long stream) {
        streams.remove(stream);
    }

    /**
     * Runs {@code nativeFree}, the free or destroy of something this communicator's work used; after an abort, only
     * once the abort has returned (or its deadline passed) and every stream the communicator enqueued on is idle, so
     * that no kernel it stops still touches what is freed. A stream still running at the abort's deadline leaves the
     * free undone (a warning says so): the memory stays held until the process ends, which is better than a device
     * context poisoned by a kernel touching freed memory. Once the communicator was aborted with kernels in flight,
     * the library can leave this process's device context in an error state (NCCL 2.28.3 did, in a job whose peer
     * died or never called: "an illegal memory access was encountered" on every later call); a free's failure is
     * then logged once, as a warning that says so, instead of thrown over the failure the caller already has.
     */
    void freeResource(Runnable nativeFree) {
        if (state == State.ABORTED) {
            abortSettled.join(); // until then the aborted communicator's kernels may still touch what is freed
            if (owned && !streamsIdle()) { // another library's abort, whenever it comes, is its own to wait for
                return;
            }
        }
        runFree(nativeFree);
    }

    /**
     * Runs {@code nativeDestroy}, the destroy of something the device runtime itself keeps until the work in flight
     * that uses it ends (a graph that captured this communicator's calls, an instantiation of one, an event): at once,
     * even while an abort runs. The library's abort returns only once no graph holds the communicator's calls any more
     * (NCCL keeps polling until every graph referencing the communicator is destroyed), so a destroy that waited for
     * the abort would wait for the abort's deadline; and the runtime frees an instantiation still in flight, or an
     * event still pending, only when that work ends, so no kernel loses what it uses.
     */
    void releaseNow(Runnable nativeDestroy) {
        runFree(nativeDestroy);
    }

    private void runFree(Runnable nativeFree) {
        try {
            nativeFree.run();
        } catch (CollectivesException e) {
            if (state != State.ABORTED) {
                throw e;
            }
            if (freeFailureReported.compareAndSet(false, true)) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        e.getMessage() + ", after " + name + " was aborted: the "
                                + "device context of this process may be unusable from now on; restart the process before "
                                + "using the device again");
            }
        }
    }

    /**
     * Whether every stream this communicator enqueued on is idle, waiting (parked, polling) up to the abort's deadline
     * after the abort stopped its kernels; a stream that fails its query runs nothing more. False, once reported,
     * where one still runs at the deadline.
     */
    private boolean streamsIdle() {
        for (long stream : streams) {
            try {
                InProgress.await(
                        () -> library.api.streamQuery(lib, stream) == NativeLibrary.NOT_READY ? InProgress.CODE : 0,
                        waits,
                        waits.aborts().timeout().toNanos(),
                        () -> CollectivesException.usage(
                                rank,
                                "stream 0x" + Long.toHexString(stream) + " still runs work of " + name + " "
                                        + waits.aborts().timeout().toSeconds() + " s after its abort"));
            } catch (CollectivesException busy) {
                if (busyStreamReported.compareAndSet(false, true)) {
                    LOG.log(
                            System.Logger.Level.WARNING,
                            busy.getMessage() + ": what its work uses is not freed, and stays held until the "
                                    + "process ends");
                }
                return false;
            }
        }
        return true;
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
            job.leave();
        }
    }
}
