package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Topology;
import dev.collectives.runtime.VirtualMemory;
import dev.collectives.runtime.bootstrap.Progress;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.internal.CallArguments;
import dev.collectives.runtime.spi.ChildCommunicators;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.runtime.spi.HostStaging;
import dev.collectives.runtime.spi.JobRanks;
import dev.collectives.runtime.spi.Lineage;
import dev.collectives.runtime.spi.Recoveries;
import dev.collectives.runtime.spi.ShrinkOrigin;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One rank's communicator on one device. It is made of parts, each with one job: {@link NativeComm} (the native
 * handle and its failure states: asynchronous error, stall, abort, finalize), {@link DeviceProbe} (capabilities),
 * {@link DeviceAllocations} (memory, registration R6 and R9, windows R10 and R12, custom allocators R11),
 * {@link DeviceCollectives} (one native call per collective, bounds checked in Java, no allocation) and
 * {@link MappedHostStaging}. This class is the communicator those parts serve: who it is, its streams, its children
 * ({@code split}, {@code shrink}) and its end.
 */
public final class DeviceCommunicator implements Communicator, HostStaging.Provider {
    private static final System.Logger LOG = System.getLogger("dev.collectives.recovery");

    private final NativeLibrary library;
    private final NativeComm handle;
    /** What its parts are given when made: they never call back into it. */
    private final DeviceRank parts;

    private final int rank;
    private final int size;
    private final int device;
    private final Topology topology;
    private final DeviceProbe probe;
    private final DeviceCollectives collectives;
    private final DeviceAllocations allocations;
    private final ChildCommunicators children = new ChildCommunicators();
    /** The parent's open children, which this one leaves when it closes; null for a communicator without parent. */
    private final ChildCommunicators siblings;

    private final FlightRecorder recorder;
    /** Which communicator of the job this is, as its flight record names it. */
    private final Lineage lineage;
    /** How many splits and shrinks of this communicator were made: the next one's number in its child's lineage. */
    private long splitSeq;

    private long shrinkSeq;
    /** Where it stands, on its rank's heartbeats, where it watches its job; closed with it. */
    private volatile Progress.Report progress = () -> {};

    private final CommOrigin origin;
    /** The config it was joined with, which a communicator formed anew among the survivors of a death gets too. */
    private volatile CommConfig joinConfig = CommConfig.DEFAULT;
    /** Where a shrink's child came from; null for other communicators. */
    private volatile ShrinkOrigin shrinkOrigin;

    DeviceCommunicator(
            NativeLibrary library,
            long handle,
            int rank,
            int size,
            int device,
            Topology topology,
            boolean collnetRequested,
            Lineage lineage) {
        this(library, handle, rank, size, device, topology, collnetRequested, Waits.SYSTEM, null, lineage);
    }

    /** The communicator {@code formed} through the job's rendezvous. */
    DeviceCommunicator(FormedComm formed) {
        this(
                formed.library(),
                formed.handle(),
                formed.rank(),
                formed.size(),
                formed.device(),
                formed.topology(),
                formed.collnetRequested(),
                formed.lineage());
    }

    /** A communicator over {@code handle}, waiting on the library as {@code waits} says (tests script them). */
    DeviceCommunicator(
            NativeLibrary library,
            long handle,
            int rank,
            int size,
            int device,
            Topology topology,
            boolean collnetRequested,
            Waits waits,
            ChildCommunicators siblings,
            Lineage lineage) {
        this(
                library,
                handle,
                rank,
                size,
                device,
                topology,
                collnetRequested,
                waits,
                siblings,
                CommOrigin.MADE_HERE,
                lineage);
    }

    /**
     * A communicator over {@code handle}, which {@code origin} says who made and among which ranks, and
     * {@code lineage} names in its flight record.
     */
    DeviceCommunicator(
            NativeLibrary library,
            long handle,
            int rank,
            int size,
            int device,
            Topology topology,
            boolean collnetRequested,
            Waits waits,
            ChildCommunicators siblings,
            CommOrigin origin,
            Lineage lineage) {
        this.siblings = siblings;
        this.lineage = lineage;
        this.origin = origin;
        this.library = library;
        this.rank = rank;
        this.size = size;
        this.device = device;
        this.topology = topology;
        this.recorder = FlightRecorder.open(this, rank, size, library.dialect.backendName(), lineage);
        this.handle = new NativeComm(library, handle, rank, origin.owned(), toString(), waits, recorder);
        this.parts = new DeviceRank(library, this.handle, rank, size, device, topology, recorder, lineage);
        this.probe = new DeviceProbe(parts, collnetRequested);
        CallArguments arguments = new CallArguments(
                rank,
                size,
                memory -> memory instanceof NativeMemory,
                "rank " + rank + "'s " + library.dialect.backendName() + " device (device " + device + ")");
        this.collectives = new DeviceCollectives(this.handle, rank, size, arguments, recorder);
        this.allocations = new DeviceAllocations(parts, this, this.handle, probe, arguments);
    }

    NativeLibrary library() {
        return library;
    }

    /** The native handle and its failure states. */
    NativeComm nativeComm() {
        return handle;
    }

    /**
     * Keeps {@code rendezvous} open as the job watch of this communicator, which holds {@code ranks} of the job (see
     * {@link NativeComm#watchJob}), through which the survivors of a death form a new communicator with
     * {@code config} ({@link #shrink}).
     */
    void watchJob(Rendezvous rendezvous, JobRanks ranks, CommConfig config) {
        joinConfig = config;
        handle.watchJob(rendezvous, ranks);
        progress = rendezvous.reportProgress(recorder::progress);
    }

    /**
     * The communicator {@code formed} with the replacements of dead ranks or the processes that joined, made with
     * this one's config: it takes the job over from this one, holding {@code formed.jobRanks()}.
     */
    private DeviceCommunicator takenOver(FormedComm formed) {
        DeviceCommunicator made = new DeviceCommunicator(formed);
        made.joinConfig = joinConfig;
        made.handle.takeJobOver(handle, formed.jobRanks());
        return made;
    }

    /** The device index this rank runs on. */
    public int device() {
        return device;
    }

    /** Bytes of device memory in use on this rank's device (total − free), for leak checks. */
    public long deviceMemoryUsed() {
        long[] info = library.memoryInfo(device);
        return info[1] - info[0];
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public String backendName() {
        return library.dialect.backendName();
    }

    @Override
    public Topology topology() {
        return topology;
    }

    @Override
    public Capabilities capabilities() {
        return probe.capabilities();
    }

    @Override
    public Optional<String> environment(String name) {
        return Optional.ofNullable(System.getenv(name));
    }

    /** Where this library made the communicator and was told to connect at init; another library's, not known. */
    @Override
    public boolean peersConnectedAtInit() {
        return origin.owned() && library.dialect.connectsAtInit();
    }

    @Override
    public String legacyRegisterVariable() {
        return library.dialect.legacyRegisterVariable();
    }

    @Override
    public String libraryFunction(String name) {
        return library.dialect.ccl(name);
    }

    /** Off where the communicator was formed elsewhere and its peers may not run this library ({@link CommOrigin}). */
    @Override
    public Optional<String> crossRankChecksOff() {
        return origin.crossRankChecksOff();
    }

    // ---- memory, registration, windows --------------------------------------------------------------------

    @Override
    public long granularity() {
        return allocations.granularity();
    }

    /** For custom allocators; what it maps is labelled CUSTOM. */
    @Override
    public VirtualMemory virtualMemory() {
        return allocations.virtualMemory();
    }

    @Override
    public DeviceBuffer allocate(Allocator allocator, DataType type, long count) {
        return allocations.allocate(allocator, type, count);
    }

    @Override
    public DeviceBuffer allocate(DeviceAllocator allocator, DataType type, long count) {
        return allocations.allocate(allocator, type, count);
    }

    /** See {@link MappedHostStaging}. */
    @Override
    public Optional<HostStaging> allocateStaging(long bytes) {
        handle.requireOpen();
        return MappedHostStaging.allocate(parts, bytes);
    }

    @Override
    public RegistrationHandle register(DeviceBuffer buffer) {
        return allocations.register(buffer);
    }

    @Override
    public RegisteredWindow registerWindow(DeviceBuffer buffer, boolean symmetric) {
        return allocations.registerWindow(buffer, symmetric);
    }

    /** Memory classified by the driver ({@link NativeMemory#classify}); the buffer frees nothing. */
    @Override
    public DeviceBuffer wrap(long address, long bytes, DataType type) {
        return allocations.wrap(address, bytes, type);
    }

    // ---- collectives ---------------------------------------------------------------------------------------

    /** Every op: checked, recorded, then one native call ({@link DeviceCollectives#enqueue}). */
    @Override
    public void call(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int rootOrPeer,
            Stream stream) {
        collectives.enqueue(kind, send, sendOffset, recv, recvOffset, count, type, op, rootOrPeer, stream);
    }

    /** {@code AlltoAll}, {@code Gather}, {@code Scatter}: where the library lacks one, a group of sends and receives. */
    @Override
    public Optional<String> sendRecvForm(OpKind kind) {
        return collectives.sendRecvForm(kind);
    }

    @Override
    public void groupStart() {
        collectives.groupStart();
    }

    @Override
    public void groupEnd() {
        collectives.groupEnd();
    }

    // ---- streams -------------------------------------------------------------------------------------------

    /** A framework's stream on this device, by its {@code cudaStream_t}/{@code musaStream_t}. */
    @Override
    public Stream wrapStream(long streamHandle) {
        handle.requireOpen();
        return new DeviceStream(parts, streamHandle);
    }

    @Override
    public Stream createStream() {
        handle.requireOpen();
        return new DeviceStream(parts);
    }

    // ---- child communicators ------------------------------------------------------------------------------

    /**
     * {@code ncclCommSplit} with the parent's config; the library returns no child for {@code NO_COLOR}. The child of
     * a watched job shares its watch ({@link SplitMembers}).
     */
    @Override
    public Optional<Communicator> split(int color, int key) {
        ChildCommunicators.requireColor(rank, color);
        handle.requireOpen();
        long seq;
        synchronized (this) {
            seq = splitSeq++;
        }
        long child = SplitMembers.commSplit(handle, rank, color, key);
        if (child == 0) {
            return Optional.empty();
        }
        DeviceCommunicator made = adopt(child, lineage.split(seq, color));
        SplitMembers.watch(handle, rank, made, made.handle, color);
        return Optional.of(made);
    }

    /**
     * The ranks but {@code excludedRanks}, by one of two paths, logged and shown in the child's {@link #toString}.
     * While this communicator is open (every rank alive, or one that hangs): {@code ncclCommRevoke} where the
     * library has it, so that the parent's work in flight stops (the parent then only closes), then
     * {@code ncclCommShrink} with the parent's config, and {@code NCCL_SHRINK_ABORT} when it has an asynchronous
     * error. Once it was aborted, as it is when a peer's death is seen (the library refuses to shrink a communicator
     * whose peer died): the survivors form a new communicator through the job's rendezvous ({@link SurvivorsInit}).
     * The child of a watched job shares its watch.
     */
    @Override
    public Communicator shrink(int... excludedRanks) {
        int[] excluded = ChildCommunicators.excludedRanks(rank, size, excludedRanks);
        return Recoveries.recover(
                Recoveries.Kind.SHRINK, rank, size, excluded, handle.abortedNanos(), () -> shrinkLeavingOut(excluded));
    }

    private DeviceCommunicator shrinkLeavingOut(int[] excluded) {
        long seq;
        synchronized (this) {
            seq = shrinkSeq++;
        }
        Lineage childLineage = lineage.shrunk(seq, excluded);
        if (handle.isAborted()) {
            SurvivorsInit.Formed formed = SurvivorsInit.form(
                    library,
                    handle.survivorsRendezvous("shrink"),
                    handle.jobRanks(),
                    handle::whileForming,
                    rank,
                    excluded,
                    device,
                    joinConfig,
                    handle.waits());
            logFormingTimes(formed);
            String path = "formed anew among the survivors through the job's rendezvous";
            return shrunk(
                    child(formed.handle(), formed.rank(), formed.size(), childLineage),
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
        return shrunk(adopt(child, childLineage), new ShrinkOrigin(rank, size, excluded, path));
    }

    /**
     * Where the time from hearing of a death to the survivors' communicator went, at INFO: the survivors' meeting
     * (agreement and unique id), the library's init.
     */
    private void logFormingTimes(SurvivorsInit.Formed formed) {
        long now = System.nanoTime();
        LOG.log(
                System.Logger.Level.INFO,
                () -> "shrink: rank " + rank + " formed the survivors' communicator of " + formed.size() + " ranks "
                        + millis(now - handle.abortedNanos()) + " after hearing of the death: the survivors met in "
                        + millis(formed.agreedNanos() - handle.abortedNanos()) + ", "
                        + library.dialect.ccl("CommInitRank") + " took " + millis(now - formed.agreedNanos()));
    }

    private static String millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
    }

    @Override
    public Communicator reform(java.time.Duration timeout) {
        return Recoveries.recover(
                Recoveries.Kind.REPLACE,
                rank,
                size,
                new int[0],
                handle.abortedNanos(),
                () -> ReplacementInit.reform(this, parts, joinConfig, timeout, this::takenOver));
    }

    @Override
    public Communicator grow(int added, java.time.Duration timeout) {
        return Recoveries.recover(
                Recoveries.Kind.GROW,
                rank,
                size,
                new int[0],
                0,
                () -> GrowInit.grow(this, parts, joinConfig, added, timeout, this::takenOver));
    }

    private DeviceCommunicator shrunk(DeviceCommunicator child, ShrinkOrigin origin) {
        child.shrinkOrigin = origin;
        child.handle.watchAsChildOf(
                handle, ranks -> ranks.child(JobRanks.without(size, origin.excluded()), origin.toString()));
        origin.logFor(child);
        return child;
    }

    /**
     * A child on this device, as the library numbered it. The library does not say which of this communicator's
     * ranks the child holds, so its topology assumes as many ranks per node as here (or all of its ranks, if
     * fewer): R8 may then refuse IB SHARP on a child that has one rank per node under a parent that has several.
     */
    private DeviceCommunicator adopt(long child, Lineage childLineage) {
        int[] out = new int[1];
        int childSize;
        int childRank;
        try {
            library.check(library.api.commCount(library.lib, child, out), rank, child, "CommCount");
            childSize = out[0];
            library.check(library.api.commUserRank(library.lib, child, out), rank, child, "CommUserRank");
            childRank = out[0];
        } catch (CollectivesException e) {
            library.api.commAbort(library.lib, child);
            throw e;
        }
        return child(child, childRank, childSize, childLineage);
    }

    /** A child on this device over {@code child}, named {@code childLineage}, closed with this communicator. */
    private DeviceCommunicator child(long child, int childRank, int childSize, Lineage childLineage) {
        return children.adopt(new DeviceCommunicator(
                library,
                child,
                childRank,
                childSize,
                device,
                new Topology(childSize, Math.min(childSize, topology.ranksPerNode())),
                probe.collnetRequested(),
                handle.waits(),
                children,
                origin.child(),
                childLineage));
    }

    /** Which communicator of the job this is: what its ranks' flight records name it. */
    Lineage lineage() {
        return lineage;
    }

    // ---- the end -------------------------------------------------------------------------------------------

    /**
     * Aborts the communicator: its operations under way on every thread end, and it is freed. The native abort runs
     * on a thread of its own under {@link AbortWatch}'s deadline; this returns when it has, or at the deadline.
     */
    @Override
    public void abort() {
        handle.abort();
    }

    @Override
    public FlightRecord flightRecord() {
        return recorder.snapshot();
    }

    /**
     * Closes the open children first, then finalizes and destroys this one; refuses while memory, registrations or
     * windows made through it are live.
     */
    @Override
    public void close() {
        Recoveries.closed(this);
        try {
            children.closeChildrenThen(() -> handle.finalizeAndDestroy(() -> {
                progress.close();
                recorder.closed();
                if (siblings != null) {
                    siblings.forget(this);
                }
            }));
        } finally {
            handle.leaveJobIfEnded(); // after the communicator: a peer that fails while it finalizes is still named
        }
    }

    @Override
    public String toString() {
        ShrinkOrigin from = shrinkOrigin;
        return backendName() + " rank " + rank + "/" + size + " on device " + device
                + (from == null ? "" : " (" + from + ")");
    }
}
