package dev.collectives.backend.sim;

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
import dev.collectives.runtime.internal.CallArguments;
import dev.collectives.runtime.spi.ChildCommunicators;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.runtime.spi.Lineage;
import dev.collectives.runtime.spi.Recoveries;
import dev.collectives.runtime.spi.ShrinkOrigin;
import java.util.List;
import java.util.Optional;

/**
 * One rank's communicator. Calls check their arguments on the calling thread ({@link CallArguments}, through
 * {@link OpCallChecks} for the ops), then go to a stream of {@link RankStreams} as work, or into the stream's
 * capture ({@link OpIssuer}); the work meets the other ranks' in {@link CommGroup}. Its memory comes from
 * {@link SimAllocations}; registrations and windows from {@link RegistrationCalls}, the local registrations counted
 * in a {@link RegistrationCache}. A child of a split or shrink is one too, with a group of its own, on its parent's
 * simulated device: memory and streams belong to the device, so the parent's serve the child.
 */
public final class SimCommunicator implements Communicator {
    /** How a shrink's child came to be, as its {@link ShrinkOrigin} says. */
    static final String SHRINK_PATH = "by the sim's shrink";

    private final int rank;
    /** The simulated device: the rank in the communicator the job started with. */
    private final int device;

    private final SimConfig config;
    private final CallArguments arguments;
    private final CommGroup group;
    private final Ledger ledger;
    private final Topology topology;
    private final SimAllocations allocations;
    private final RegistrationCache registrations;
    private final RegistrationCalls registrationCalls;
    private final OpCallChecks opCalls;
    private final OpIssuer issuer;
    private final RankStreams streams;
    private final SimStream defaultStream;
    private long splitSeq;
    private long shrinkSeq;
    private final ChildCommunicators children = new ChildCommunicators();
    /** The parent's open children, which this one leaves when it closes; null for a communicator without parent. */
    private final ChildCommunicators siblings;
    /** Where a shrink's child came from; null for other communicators. */
    private final ShrinkOrigin origin;

    private boolean closed;
    /** Which communicator of the job this is, as its flight record names it. */
    private final Lineage lineage;

    private final FlightRecorder recorder;
    /** Where it stands, on its rank's heartbeats while it is open. */
    private final Progress.Report progress;

    /** Rank {@code rank} of a communicator the job starts with, on device {@code rank}, named {@code lineage}. */
    SimCommunicator(int rank, SimConfig config, CommGroup group, Ledger ledger, Lineage lineage) {
        this(rank, rank, config, group, ledger, null, null, lineage);
    }

    private SimCommunicator(
            int rank,
            int device,
            SimConfig config,
            CommGroup group,
            Ledger ledger,
            ChildCommunicators siblings,
            ShrinkOrigin origin,
            Lineage lineage) {
        this.rank = rank;
        this.lineage = lineage;
        this.device = device;
        this.siblings = siblings;
        this.origin = origin;
        this.config = config;
        this.arguments = new CallArguments(
                rank,
                config.ranks(),
                memory -> memory instanceof SimMemory && ((SimMemory) memory).rank() == device,
                "rank " + rank + "'s simulated device (device " + device + ")");
        this.group = group;
        this.ledger = ledger;
        this.topology = new Topology(config.ranks(), config.ranksPerNode());
        this.allocations = new SimAllocations(rank, device, config, ledger);
        this.registrations = new RegistrationCache(ledger);
        this.registrationCalls = new RegistrationCalls(this, config, arguments, group, ledger, registrations);
        this.opCalls = new OpCallChecks(this, arguments);
        this.recorder = FlightRecorder.open(this, rank, config.ranks(), SimBackend.NAME, lineage);
        this.progress = group.reportProgress(recorder::progress);
        this.issuer = new OpIssuer(this, group, config, registrations, recorder);
        this.streams = new RankStreams(this, device);
        this.defaultStream = (SimStream) createStream();
    }

    Stream defaultStream() {
        return defaultStream;
    }

    /** The group of ranks it meets in its calls. */
    CommGroup group() {
        return group;
    }

    Ledger ledger() {
        return ledger;
    }

    /** What the communicator simulates: for a joined rank, as the bootstrap's settings and the job say. */
    public SimConfig config() {
        return config;
    }

    /**
     * What this rank has made and not yet released (memory, registrations, windows, graphs): all zero once
     * everything made through this communicator was closed. On a joined rank this is the rank's own count.
     */
    public SimUsage usage() {
        return ledger.snapshot();
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return config.ranks();
    }

    @Override
    public String backendName() {
        return SimBackend.NAME;
    }

    @Override
    public Topology topology() {
        return topology;
    }

    @Override
    public Capabilities capabilities() {
        return config.capabilities();
    }

    @Override
    public Optional<String> environment(String name) {
        return config.environment(name);
    }

    @Override
    public boolean peersConnectedAtInit() {
        return config.connectAtInit();
    }

    @Override
    public String legacyRegisterVariable() {
        return SimConfig.LEGACY_REGISTER_VARIABLE;
    }

    @Override
    public String libraryFunction(String name) {
        return "{nccl,mccl}" + name;
    }

    @Override
    public long granularity() {
        return config.granularity();
    }

    @Override
    public VirtualMemory virtualMemory() {
        return allocations.customVmm();
    }

    // ---- memory ------------------------------------------------------------------------------------------

    @Override
    public DeviceBuffer allocate(Allocator allocator, DataType type, long count) {
        requireOpen("allocate");
        return allocations.allocate(allocator, type, count, arguments.bytes("allocate", count, type));
    }

    @Override
    public DeviceBuffer allocate(DeviceAllocator allocator, DataType type, long count) {
        requireOpen("allocate");
        return allocations.allocate(allocator, type, count, arguments.bytes("allocate", count, type));
    }

    // ---- registration ------------------------------------------------------------------------------------

    @Override
    public RegistrationHandle register(DeviceBuffer buffer) {
        requireUsable("register");
        return registrationCalls.register(buffer);
    }

    /**
     * {@code {nccl,mccl}CommDeregister(comm, handle)} as a call: unlike {@link RegistrationHandle#close()}, which is
     * idempotent, deregistering a handle this communicator did not make, or one already deregistered, is an error.
     */
    public void deregister(RegistrationHandle handle) {
        registrationCalls.deregister(handle);
    }

    /** One handle of {@code memory} was closed; the last one deregisters it. */
    void release(SimMemory memory) {
        registrations.release(memory);
    }

    @Override
    public RegisteredWindow registerWindow(DeviceBuffer buffer, boolean symmetric) {
        requireUsable("registerWindow");
        return registrationCalls.registerWindow(buffer, symmetric);
    }

    void deregisterWindow(SimWindow window) {
        registrationCalls.deregisterWindow(window);
    }

    // ---- collectives -------------------------------------------------------------------------------------

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
        int peer = CallArguments.peerOf(kind, rootOrPeer);
        issue(stream, opCalls.checked(kind, send, sendOffset, recv, recvOffset, count, type, op, peer));
    }

    @Override
    public void groupStart() {
        requireUsable("groupStart");
        issuer.groupStart();
    }

    @Override
    public void groupEnd() {
        issuer.groupEnd();
    }

    private void issue(Stream stream, OpCall call) {
        issuer.issue(streams.of(stream), call);
    }

    void launchGraph(List<List<OpCall>> steps, Stream stream) {
        requireUsable("graph launch");
        issuer.launchGraph(steps, streams.of(stream));
    }

    // ---- memory and streams owned elsewhere ---------------------------------------------------------------

    /**
     * Any memory the simulated driver allocated (the project's own or a {@link SimForeignMemory}), classified as a
     * GPU's driver classifies an address.
     */
    @Override
    public DeviceBuffer wrap(long address, long bytes, DataType type) {
        requireOpen("wrap");
        return allocations.wrap(address, bytes, type);
    }

    /** A stream of this rank's device, found by its handle: a {@link SimForeignStream} or any communicator's. */
    @Override
    public Stream wrapStream(long handle) {
        requireOpen("wrapStream");
        return streams.wrap(handle);
    }

    // ---- streams and lifetime ----------------------------------------------------------------------------

    @Override
    public synchronized Stream createStream() {
        requireUsable("createStream");
        return streams.create();
    }

    private synchronized void requireOpen(String call) {
        if (closed) {
            throw CollectivesException.usage(rank, call + " on a closed communicator");
        }
    }

    /** Open and not aborted: what every call that talks to the other ranks needs. */
    void requireUsable(String call) {
        requireOpen(call);
        group.requireNotAborted(rank, call);
    }

    /** The asynchronous error of this communicator, as events see it: its abort. */
    void checkAsyncError(String call) {
        group.requireNotAborted(rank, call);
    }

    // ---- child communicators ------------------------------------------------------------------------------

    @Override
    public Optional<Communicator> split(int color, int key) {
        ChildCommunicators.requireColor(rank, color);
        requireUsable("split");
        long seq;
        synchronized (this) {
            seq = splitSeq++;
        }
        return group.split(rank, seq, color, key).map(member -> adopt(member, null, lineage.split(seq, color)));
    }

    /** Works on an aborted communicator too: that is what survivors of a failed rank shrink. */
    @Override
    public Communicator shrink(int... excludedRanks) {
        int[] excluded = ChildCommunicators.excludedRanks(rank, size(), excludedRanks);
        requireOpen("shrink");
        long seq;
        synchronized (this) {
            seq = shrinkSeq++;
        }
        ShrinkOrigin origin = new ShrinkOrigin(rank, size(), excluded, SHRINK_PATH);
        return Recoveries.recover(Recoveries.Kind.SHRINK, rank, size(), excluded, group.abortedNanos(), () -> {
            SimCommunicator child = adopt(group.shrink(rank, seq, excluded), origin, lineage.shrunk(seq, excluded));
            origin.logFor(child);
            return child;
        });
    }

    /** Works on an aborted communicator of a job of processes: see {@link SimReform}. */
    @Override
    public Communicator reform(java.time.Duration timeout) {
        requireOpen("reform");
        return Recoveries.recover(
                Recoveries.Kind.REPLACE,
                rank,
                size(),
                new int[0],
                group.abortedNanos(),
                () -> SimReform.reform(this, group, timeout));
    }

    /** Works on the open communicator of a job of processes: see {@link SimReform#grow}. */
    @Override
    public Communicator grow(int added, java.time.Duration timeout) {
        requireOpen("grow");
        return Recoveries.recover(
                Recoveries.Kind.GROW, rank, size(), new int[0], 0, () -> SimReform.grow(this, group, added, timeout));
    }

    private SimCommunicator adopt(CommGroup.Member member, ShrinkOrigin origin, Lineage childLineage) {
        return children.adopt(new SimCommunicator(
                member.rank(),
                device,
                member.group().config(),
                member.group(),
                new Ledger(),
                children,
                origin,
                childLineage));
    }

    /** Which communicator of the job this is: what its ranks' flight records name it. */
    Lineage lineage() {
        return lineage;
    }

    @Override
    public void abort() {
        group.abort("rank " + rank + " called abort()");
        recorder.aborted();
    }

    @Override
    public FlightRecord flightRecord() {
        return recorder.snapshot();
    }

    /**
     * Closes the open children first, then lets queued work finish, stops the streams, and reports what was left
     * alive through this communicator (memory, registrations, windows, graphs): that must be closed first.
     * Idempotent.
     */
    @Override
    public void close() {
        Recoveries.closed(this);
        children.closeChildrenThen(this::closeThis);
    }

    private void closeThis() {
        List<SimStream> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = streams.made();
        }
        toClose.forEach(SimStream::close);
        progress.close();
        recorder.closed();
        group.leave(rank);
        if (siblings != null) {
            siblings.forget(this);
        }
        SimUsage left = ledger.snapshot();
        if (!left.isZero()) {
            throw CollectivesException.usage(
                    rank,
                    "communicator closed with live resources: " + left
                            + "; close graphs, windows, registrations and memory before the communicator");
        }
    }

    @Override
    public String toString() {
        return "sim communicator, rank " + rank + " of " + size()
                + (siblings == null
                        ? ""
                        : " (a child; device " + device + ", its rank when the job began"
                                + (origin == null ? "" : "; " + origin) + ")");
    }
}
