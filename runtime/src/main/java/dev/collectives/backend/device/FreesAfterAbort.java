package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The frees of what one communicator's work used (memory, registrations, streams, graphs), which its abort orders:
 * once the communicator was aborted, a free waits until the library's abort has returned and every stream the
 * communicator enqueued on is idle, so that no kernel the abort stops still touches what is freed.
 */
final class FreesAfterAbort {
    private static final System.Logger LOG = System.getLogger("dev.collectives.device");

    private final NativeLibrary library;
    private final int rank;
    /** Whether this library made the communicator, and so aborts it and waits for its streams. */
    private final boolean owned;
    /** The communicator, as messages name it: "nccl rank 1/2 on device 0". */
    private final String name;

    private final Waits waits;
    /** Whether the communicator was aborted. */
    private final BooleanSupplier aborted;
    /** The streams the communicator enqueued work on, still open: after an abort, frees wait until they are idle. */
    private final Set<Long> streams = ConcurrentHashMap.newKeySet();
    /** Done once the abort has returned or its deadline passed; until then no free may run. */
    private final CompletableFuture<Void> settled = new CompletableFuture<>();
    /** Whether a free after the abort failed and was reported. */
    private final AtomicBoolean freeFailureReported = new AtomicBoolean();
    /** Whether a free after the abort was left undone, a stream still running, and was reported. */
    private final AtomicBoolean busyStreamReported = new AtomicBoolean();

    FreesAfterAbort(NativeLibrary library, int rank, boolean owned, String name, Waits waits, BooleanSupplier aborted) {
        this.library = library;
        this.rank = rank;
        this.owned = owned;
        this.name = name;
        this.waits = waits;
        this.aborted = aborted;
    }

    /** The abort has returned, or its deadline passed, or there is none of ours to wait for: frees may run. */
    void abortSettled() {
        settled.complete(null);
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
    void free(Runnable nativeFree) {
        if (aborted.getAsBoolean()) {
            settled.join(); // until then the aborted communicator's kernels may still touch what is freed
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
            if (!aborted.getAsBoolean()) {
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
                        () -> library.api.streamQuery(library.lib, stream) == NativeLibrary.NOT_READY
                                ? InProgress.CODE
                                : 0,
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
}
