package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Message;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Topology;
import dev.collectives.runtime.VirtualMemory;
import dev.collectives.runtime.internal.AllocatorRule;
import dev.collectives.runtime.internal.ByteRanges;
import dev.collectives.runtime.internal.CallArguments;
import dev.collectives.runtime.internal.LegacyRegistrationRule;
import dev.collectives.runtime.spi.ChildCommunicators;
import dev.collectives.runtime.spi.FlightEvents;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.runtime.spi.ShrinkOrigin;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import jdk.jfr.Event;

/**
 * One rank's communicator. Calls check their arguments on the calling thread ({@link CallArguments}), then go to the
 * stream as work, or into the stream's capture ({@link OpIssuer}); the work meets the other ranks' in
 * {@link CommGroup}. Its memory comes from {@link SimAllocations}, its local registrations are counted in a
 * {@link RegistrationCache}. A child of a split or shrink
 * is one too, with a group of its own, on its parent's simulated device: memory and streams belong to the device,
 * so the parent's serve the child.
 */
public final class SimCommunicator implements Communicator {
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
    private final OpIssuer issuer;
    private final List<SimStream> streams = new ArrayList<>();
    private final SimStream defaultStream;
    private long windowSeq;
    private long splitSeq;
    private long shrinkSeq;
    private final ChildCommunicators children = new ChildCommunicators();
    /** The parent's open children, which this one leaves when it closes; null for a communicator without parent. */
    private final ChildCommunicators siblings;
    /** Where a shrink's child came from; null for other communicators. */
    private final ShrinkOrigin origin;

    private boolean closed;
    private final FlightRecorder recorder;

    /** Rank {@code rank} of a communicator the job starts with, on device {@code rank}. */
    SimCommunicator(int rank, SimConfig config, CommGroup group, Ledger ledger) {
        this(rank, rank, config, group, ledger, null, null);
    }

    private SimCommunicator(
            int rank,
            int device,
            SimConfig config,
            CommGroup group,
            Ledger ledger,
            ChildCommunicators siblings,
            ShrinkOrigin origin) {
        this.rank = rank;
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
        this.recorder = FlightRecorder.open(this, rank, config.ranks(), SimBackend.NAME);
        this.issuer = new OpIssuer(this, group, config, registrations, recorder);
        this.defaultStream = (SimStream) createStream();
    }

    Stream defaultStream() {
        return defaultStream;
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
        if (!config.capabilities().registration()) {
            throw CollectivesException.library(
                    Result.INVALID_USAGE,
                    rank,
                    libraryFunction("CommRegister"),
                    "library " + config.capabilities().libraryVersion() + " does not support user buffer registration");
        }
        SimMemory memory = (SimMemory) arguments.memory("register", buffer);
        LegacyRegistrationRule.check(this, buffer);
        AllocatorRule.checkForeign(this, buffer, "buffer " + buffer);
        Event event = FlightEvents.registrationStarted();
        registrations.add(memory);
        FlightEvents.registrationDone(event, this, "CommRegister", buffer.sizeBytes());
        return new SimRegistration(this, buffer, memory);
    }

    /**
     * {@code {nccl,mccl}CommDeregister(comm, handle)} as a call: unlike {@link RegistrationHandle#close()}, which is
     * idempotent, deregistering a handle this communicator did not make, or one already deregistered, is an error.
     */
    public void deregister(RegistrationHandle handle) {
        if (!(handle instanceof SimRegistration) || ((SimRegistration) handle).communicator() != this) {
            throw CollectivesException.violation(
                    Message.R6_UNKNOWN_HANDLE, rank, libraryFunction("CommDeregister"), handle);
        }
        if (!handle.isOpen()) {
            throw CollectivesException.violation(
                    Message.R6_DEREGISTERED_TWICE, rank, libraryFunction("CommDeregister"), handle);
        }
        handle.close();
    }

    /** One handle of {@code memory} was closed; the last one deregisters it. */
    void release(SimMemory memory) {
        registrations.release(memory);
    }

    @Override
    public RegisteredWindow registerWindow(DeviceBuffer buffer, boolean symmetric) {
        requireUsable("registerWindow");
        Capabilities capabilities = config.capabilities();
        if (!capabilities.registration() || !capabilities.symmetricWindows()) {
            throw CollectivesException.library(
                    Result.INVALID_USAGE,
                    rank,
                    libraryFunction("CommWindowRegister"),
                    "it returned a NULL window: library " + capabilities.libraryVersion()
                            + " has no symmetric window support on this communicator");
        }
        SimMemory memory = (SimMemory) arguments.memory("registerWindow", buffer);
        List<WindowArrival> all = windowCall(new WindowArrival(true, buffer, symmetric));
        memory.addWindow();
        ledger.windows.incrementAndGet();
        return new SimWindow(this, buffer, symmetric, all);
    }

    void deregisterWindow(SimWindow window) {
        try {
            windowCall(new WindowArrival(false, window.buffer(), window.symmetric()));
        } finally {
            ((SimMemory) window.buffer().memory()).removeWindow();
            ledger.windows.decrementAndGet();
        }
    }

    /** A host-side collective window call: waits for every rank's matching call. */
    private List<WindowArrival> windowCall(WindowArrival arrival) {
        long seq;
        synchronized (this) {
            seq = windowSeq++;
        }
        return group.windowCall(rank, seq, arrival);
    }

    // ---- collectives -------------------------------------------------------------------------------------

    @Override
    public void allReduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            Stream stream) {
        issue(
                stream,
                checked(OpKind.ALL_REDUCE, send, sendOffset, count, recv, recvOffset, count, count, type, op, -1, 0));
    }

    @Override
    public void allGather(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long sendCount,
            DataType type,
            Stream stream) {
        OpKind kind = OpKind.ALL_GATHER;
        issue(
                stream,
                checked(
                        kind,
                        send,
                        sendOffset,
                        sendCount,
                        recv,
                        recvOffset,
                        arguments.elements(kind.method(), sendCount, type, true),
                        sendCount,
                        type,
                        null,
                        -1,
                        (long) rank * sendCount));
    }

    @Override
    public void reduceScatter(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            DataType type,
            ReduceOp op,
            Stream stream) {
        OpKind kind = OpKind.REDUCE_SCATTER;
        issue(
                stream,
                checked(
                        kind,
                        send,
                        sendOffset,
                        arguments.elements(kind.method(), recvCount, type, true),
                        recv,
                        recvOffset,
                        recvCount,
                        recvCount,
                        type,
                        op,
                        -1,
                        -(long) rank * recvCount));
    }

    @Override
    public void broadcast(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            int root,
            Stream stream) {
        arguments.peer(OpKind.BROADCAST.method(), "root", root);
        issue(
                stream,
                checked(
                        OpKind.BROADCAST,
                        rank == root ? send : null,
                        sendOffset,
                        count,
                        recv,
                        recvOffset,
                        count,
                        count,
                        type,
                        null,
                        root,
                        0));
    }

    @Override
    public void reduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int root,
            Stream stream) {
        arguments.peer(OpKind.REDUCE.method(), "root", root);
        issue(
                stream,
                checked(
                        OpKind.REDUCE,
                        send,
                        sendOffset,
                        count,
                        rank == root ? recv : null,
                        recvOffset,
                        count,
                        count,
                        type,
                        op,
                        root,
                        0));
    }

    @Override
    public void allToAll(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            Stream stream) {
        OpKind kind = OpKind.ALL_TO_ALL;
        long total = arguments.elements(kind.method(), count, type, true);
        issue(stream, checked(kind, send, sendOffset, total, recv, recvOffset, total, count, type, null, -1, 0));
    }

    @Override
    public void send(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        arguments.peer(OpKind.SEND.method(), "peer", peer);
        issue(stream, checked(OpKind.SEND, buffer, offset, count, null, 0, 0, count, type, null, peer, 0));
    }

    @Override
    public void recv(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        arguments.peer(OpKind.RECV.method(), "peer", peer);
        issue(stream, checked(OpKind.RECV, null, 0, 0, buffer, offset, count, count, type, null, peer, 0));
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

    /**
     * Checks an op's arguments ({@link CallArguments}: count and reduce op, R13; buffers of this rank's live memory
     * with room from their offsets), and that send and recv regions are either in place (send
     * {@code inPlaceShift} elements from recv) or disjoint (R7). The op's sides are the buffers from their offsets.
     */
    private OpCall checked(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            long sendCount,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            long count,
            DataType type,
            ReduceOp op,
            int peer,
            long inPlaceShift) {
        String call = kind.method();
        requireUsable(call);
        arguments.elements(call, count, type, false);
        if (op != null) {
            arguments.reduceOp(call, op, type);
        }
        // Only the root's send of a broadcast and the root's recv of a reduce matter.
        boolean sendRequired = kind != OpKind.RECV && !(kind == OpKind.BROADCAST && rank != peer);
        boolean recvRequired = kind != OpKind.SEND && !(kind == OpKind.REDUCE && rank != peer);
        DeviceBuffer sendSide = side(call, "send", send, sendRequired, sendOffset, sendCount, type);
        DeviceBuffer recvSide = side(call, "recv", recv, recvRequired, recvOffset, recvCount, type);
        if (sendSide != null && recvSide != null) {
            // addresses compared, shown as bytes from the send allocation's head, as bind shows them
            long sendHead = sendSide.address() - sendSide.headOffset();
            long recvStart = recvSide.address() - sendHead;
            ByteRanges.requireInPlaceOrApart(
                    rank,
                    call,
                    inPlaceShift * type.size(),
                    sendSide.headOffset(),
                    sendSide.headOffset() + sendCount * type.size(),
                    recvStart,
                    recvStart + recvCount * type.size());
        }
        return new OpCall(kind, sendSide, recvSide, count, type, op, peer, null, null);
    }

    /** The part of {@code buffer} from {@code offset} elements on, once it holds {@code elements}; or null. */
    private DeviceBuffer side(
            String call,
            String role,
            DeviceBuffer buffer,
            boolean required,
            long offset,
            long elements,
            DataType type) {
        if (!arguments.room(call, role, buffer, required, offset, elements, type)) {
            return null;
        }
        return offset == 0
                ? buffer
                : buffer.view(offset * type.size(), type, buffer.sizeBytes() / type.size() - offset);
    }

    private void issue(Stream stream, OpCall call) {
        issuer.issue(streamOf(stream), call);
    }

    void launchGraph(List<List<OpCall>> steps, Stream stream) {
        requireUsable("graph launch");
        issuer.launchGraph(steps, streamOf(stream));
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
        SimStream target = SimStream.byHandle(handle);
        if (target == null) {
            throw CollectivesException.usage(
                    rank,
                    "wrapStream(0x" + Long.toHexString(handle) + "): no live stream "
                            + "of the simulated devices has that handle");
        }
        return new WrappedSimStream(streamOf(target), this);
    }

    // ---- streams and lifetime ----------------------------------------------------------------------------

    @Override
    public synchronized Stream createStream() {
        requireUsable("createStream");
        SimStream stream = new SimStream(
                this, device, "sim-device-" + device + "-rank-" + rank + "-of-" + size() + "-stream-" + streams.size());
        streams.add(stream);
        return stream;
    }

    /** The stream behind {@code stream}: one of this rank's device, made here or wrapped. */
    private SimStream streamOf(Stream stream) {
        SimStream s = stream instanceof WrappedSimStream
                ? ((WrappedSimStream) stream).target()
                : stream instanceof SimStream ? (SimStream) stream : null;
        if (s == null || s.device() != device) {
            throw CollectivesException.usage(
                    rank, stream + " is not a stream of rank " + rank + "'s device (device " + device + ")");
        }
        return s;
    }

    private synchronized void requireOpen(String call) {
        if (closed) {
            throw CollectivesException.usage(rank, call + " on a closed communicator");
        }
    }

    /** Open and not aborted: what every call that talks to the other ranks needs. */
    private void requireUsable(String call) {
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
        return group.split(rank, seq, color, key).map(member -> adopt(member, null));
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
        ShrinkOrigin origin = new ShrinkOrigin(rank, size(), excluded, "by the sim's shrink");
        SimCommunicator child = adopt(group.shrink(rank, seq, excluded), origin);
        origin.logFor(child);
        return child;
    }

    private SimCommunicator adopt(CommGroup.Member member, ShrinkOrigin origin) {
        return children.adopt(new SimCommunicator(
                member.rank(), device, member.group().config(), member.group(), new Ledger(), children, origin));
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
        children.closeChildrenThen(this::closeThis);
    }

    private void closeThis() {
        List<SimStream> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = List.copyOf(streams);
        }
        toClose.forEach(SimStream::close);
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
                        : " (a child, on device " + device + (origin == null ? "" : "; " + origin) + ")");
    }
}
