package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.spi.ChildCommunicators;
import dev.collectives.runtime.spi.Lineage;
import dev.collectives.runtime.spi.ShrinkOrigin;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The native handles of a communicator's children, each numbered in the job's lineage: a split's
 * ({@code ncclCommSplit}), and a shrink's, by one of two paths. While the parent is open (every rank alive, or one
 * that hangs): {@code ncclCommRevoke} where the library has it, so that the parent's work in flight stops (the parent
 * then only closes), then {@code ncclCommShrink} with the parent's config, and {@code NCCL_SHRINK_ABORT} when it has
 * an asynchronous error. Once it was aborted, as it is when a peer's death is seen (the library refuses to shrink a
 * communicator whose peer died): the survivors form a new communicator through the job's rendezvous
 * ({@link SurvivorsInit}). The communicator makes a child of each handle it returns.
 */
final class ChildHandles {
    private static final System.Logger LOG = System.getLogger("dev.collectives.recovery");

    /** A child's native handle, its rank and size there, and which communicator of the job it is. */
    record Child(long handle, int rank, int size, Lineage lineage) {}

    /** A shrink's child, and where it came from. */
    record Shrunk(Child child, ShrinkOrigin origin) {}

    private final DeviceRank parent;
    private final NativeLibrary library;
    private final NativeComm handle;
    /** How many splits and shrinks of the parent were made: the next one's number in its child's lineage. */
    private long splitSeq;

    private long shrinkSeq;

    ChildHandles(DeviceRank parent) {
        this.parent = parent;
        this.library = parent.library();
        this.handle = parent.nativeComm();
    }

    /** {@code ncclCommSplit} with the parent's config; the library returns no child for {@code NO_COLOR}. */
    Optional<Child> split(int color, int key) {
        ChildCommunicators.requireColor(parent.rank(), color);
        handle.requireOpen();
        long seq;
        synchronized (this) {
            seq = splitSeq++;
        }
        long child = SplitMembers.commSplit(handle, parent.rank(), color, key);
        if (child == 0) {
            return Optional.empty();
        }
        return Optional.of(adopt(child, parent.lineage().split(seq, color)));
    }

    /**
     * The ranks but {@code excluded}: by the library's shrink while the parent is open, else formed anew among the
     * survivors with {@code config}, the config the parent was joined with.
     */
    Shrunk shrink(int[] excluded, CommConfig config) {
        int rank = parent.rank();
        int size = parent.size();
        long seq;
        synchronized (this) {
            seq = shrinkSeq++;
        }
        Lineage childLineage = parent.lineage().shrunk(seq, excluded);
        if (handle.isAborted()) {
            SurvivorsInit.Formed formed = SurvivorsInit.form(
                    library,
                    handle.job().survivorsRendezvous("shrink"),
                    handle.job().ranks(),
                    handle.job()::whileForming,
                    rank,
                    excluded,
                    parent.device(),
                    config,
                    handle.waits());
            logFormingTimes(formed);
            String path = "formed anew among the survivors through the job's rendezvous";
            return new Shrunk(
                    new Child(formed.handle(), formed.rank(), formed.size(), childLineage),
                    new ShrinkOrigin(rank, size, excluded, path));
        }
        handle.requireOpen();
        library.requireAvailable(rank, NativeLibrary.Slots.COMM_SHRINK);
        int flags = handle.shrinkFlags();
        boolean revoke = library.has(NativeLibrary.Slots.COMM_REVOKE);
        handle.revokeIfAvailable();
        long child;
        try (NativeSlot out = new NativeSlot()) {
            int rc = handle.onHandle(
                    comm -> library.api.commShrink(library.lib, comm, excluded, excluded.length, out.pointer(), flags));
            child = out.afterGroupJob(handle, rc, library.dialect.ccl("CommShrink"));
        }
        String path = "by " + library.dialect.ccl("CommShrink")
                + (revoke ? " after " + library.dialect.ccl("CommRevoke") : "");
        return new Shrunk(adopt(child, childLineage), new ShrinkOrigin(rank, size, excluded, path));
    }

    /**
     * Where the time from hearing of a death to the survivors' communicator went, at INFO: the survivors' meeting
     * (agreement and unique id), the library's init.
     */
    private void logFormingTimes(SurvivorsInit.Formed formed) {
        long now = System.nanoTime();
        LOG.log(
                System.Logger.Level.INFO,
                () -> "shrink: rank " + parent.rank() + " formed the survivors' communicator of " + formed.size()
                        + " ranks " + millis(now - handle.abortedNanos()) + " after hearing of the death: the "
                        + "survivors met in " + millis(formed.agreedNanos() - handle.abortedNanos()) + ", "
                        + library.dialect.ccl("CommInitRank") + " took " + millis(now - formed.agreedNanos()));
    }

    private static String millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
    }

    /** The child the library made as {@code child}, its rank and size as the library tells them; aborted if it cannot. */
    private Child adopt(long child, Lineage childLineage) {
        int[] out = new int[1];
        try {
            library.check(library.api.commCount(library.lib, child, out), parent.rank(), child, "CommCount");
            int childSize = out[0];
            library.check(library.api.commUserRank(library.lib, child, out), parent.rank(), child, "CommUserRank");
            return new Child(child, out[0], childSize, childLineage);
        } catch (CollectivesException e) {
            library.api.commAbort(library.lib, child);
            throw e;
        }
    }
}
