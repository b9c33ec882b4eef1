package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.ForeignMemory;
import dev.collectives.runtime.QualifiedVmmAllocator;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Topology;
import dev.collectives.runtime.VirtualMemory;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.internal.AllocatorRule;
import dev.collectives.runtime.internal.ByteRanges;
import dev.collectives.runtime.internal.LegacyRegistrationRule;
import dev.collectives.runtime.spi.ChildCommunicators;
import dev.collectives.runtime.spi.FlightEvents;
import dev.collectives.runtime.spi.FlightRecorder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jdk.jfr.Event;

/**
 * One rank's communicator. Calls check their arguments on the calling thread, then go to the stream as work (or
 * into the stream's capture); the work meets the other ranks' in {@link CommGroup}. A child of a split or shrink
 * is one too, with a group of its own, on its parent's simulated device: memory and streams belong to the device,
 * so the parent's serve the child.
 */
public final class SimCommunicator implements Communicator {
    private static final long LEGACY_ALIGNMENT = 256;

    private final int rank;
    /** The simulated device: the rank in the communicator the job started with. */
    private final int device;
    private final SimConfig config;
    private final CommGroup group;
    private final Ledger ledger;
    private final Topology topology;
    private final SimVirtualMemory customVmm;
    private final SimVirtualMemory projectVmm;
    private final List<SimStream> streams = new ArrayList<>();
    private final Map<SimMemory, Integer> registrationCache = new HashMap<>();
    private final ThreadLocal<GroupState> groupState = ThreadLocal.withInitial(GroupState::new);
    private final SimStream defaultStream;
    private long collectiveSeq;
    private long windowSeq;
    private final Map<Integer, long[]> peerSeqs = new HashMap<>();
    private long splitSeq;
    private long shrinkSeq;
    private final ChildCommunicators children = new ChildCommunicators();
    /** The parent's open children, which this one leaves when it closes; null for a communicator without parent. */
    private final ChildCommunicators siblings;
    private boolean closed;
    private final FlightRecorder recorder;

    /** Rank {@code rank} of a communicator the job starts with, on device {@code rank}. */
    SimCommunicator(int rank, SimConfig config, CommGroup group, Ledger ledger) {
        this(rank, rank, config, group, ledger, null);
    }

    private SimCommunicator(int rank, int device, SimConfig config, CommGroup group, Ledger ledger,
                            ChildCommunicators siblings) {
        this.rank = rank;
        this.device = device;
        this.siblings = siblings;
        this.config = config;
        this.group = group;
        this.ledger = ledger;
        this.topology = new Topology(config.ranks(), config.ranksPerNode());
        this.customVmm = new SimVirtualMemory(device, ledger, config, Allocator.CUSTOM);
        this.projectVmm = new SimVirtualMemory(device, ledger, config, Allocator.VMM);
        this.defaultStream = (SimStream) createStream();
        this.recorder = FlightRecorder.open(this, rank, config.ranks(), SimBackend.NAME);
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
        return customVmm;
    }

    // ---- memory ------------------------------------------------------------------------------------------

    @Override
    public DeviceBuffer allocate(Allocator allocator, DataType type, long count) {
        requireOpen("allocate");
        long bytes = bytes(count, type, 1, "allocate");
        long granularity = config.granularity();
        switch (allocator) {
            case MEM_ALLOC: {
                long rounded = VirtualMemory.roundUp(bytes, granularity);
                return DeviceBuffer.root(SimMemory.allocate(device, ledger, Allocator.MEM_ALLOC, rounded, rounded,
                        granularity, projectVmm.qualifiedHandleTypes()), type, count);
            }
            case VMM:
                return checkedRoot(new QualifiedVmmAllocator(), projectVmm, type, count);
            case LEGACY:
                return DeviceBuffer.root(SimMemory.allocate(device, ledger, Allocator.LEGACY, bytes, bytes,
                        LEGACY_ALIGNMENT, Set.of()), type, count);
            default:
                throw CollectivesException.usage(rank, "Allocator." + allocator + " needs an allocator instance:"
                        + " call allocate(DeviceAllocator, type, count)");
        }
    }

    @Override
    public DeviceBuffer allocate(DeviceAllocator allocator, DataType type, long count) {
        requireOpen("allocate");
        return checkedRoot(allocator, customVmm, type, count);
    }

    /** Memory from {@code allocator}, checked against R11; freed again if it fails the check. */
    private DeviceBuffer checkedRoot(DeviceAllocator allocator, SimVirtualMemory vmm, DataType type, long count) {
        long bytes = bytes(count, type, 1, "allocate");
        DeviceMemory memory = allocator.allocate(vmm, bytes);
        try {
            if (!(memory instanceof SimMemory) || ((SimMemory) memory).rank() != device) {
                throw CollectivesException.usage(rank, AllocatorRule.nameOf(allocator.getClass()) + " returned " + memory
                        + ", which was not mapped with this rank's virtualMemory()");
            }
            if (memory.size() < bytes) {
                throw CollectivesException.usage(rank, AllocatorRule.nameOf(allocator.getClass()) + " returned " + memory
                        + " for a request of " + bytes + " bytes");
            }
            AllocatorRule.check(allocator.getClass(), memory, config.granularity(),
                    config.capabilities().fabricHandles(), rank);
            return DeviceBuffer.root(memory, type, count);
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
    }

    // ---- registration ------------------------------------------------------------------------------------

    @Override
    public RegistrationHandle register(DeviceBuffer buffer) {
        requireUsable("register");
        if (!config.capabilities().registration()) {
            throw CollectivesException.library(Result.INVALID_USAGE, rank, libraryFunction("CommRegister"), "library "
                    + config.capabilities().libraryVersion() + " does not support user buffer registration");
        }
        SimMemory memory = memoryOf(buffer, "register");
        LegacyRegistrationRule.check(this, buffer);
        AllocatorRule.checkForeign(this, buffer, "buffer " + buffer);
        Event event = FlightEvents.registrationStarted();
        synchronized (registrationCache) {
            int references = registrationCache.getOrDefault(memory, 0);
            if (references == 0) {
                memory.addRegistration();
                ledger.registrations.incrementAndGet();
            }
            registrationCache.put(memory, references + 1);
        }
        FlightEvents.registrationDone(event, this, "CommRegister", buffer.sizeBytes());
        return new SimRegistration(this, buffer, memory);
    }

    /**
     * {@code {nccl,mccl}CommDeregister(comm, handle)} as a call: unlike {@link RegistrationHandle#close()}, which is
     * idempotent, deregistering a handle this communicator did not make, or one already deregistered, is an error.
     */
    public void deregister(RegistrationHandle handle) {
        if (!(handle instanceof SimRegistration) || ((SimRegistration) handle).communicator() != this) {
            throw CollectivesException.violation(Rule.R6_LOCAL, rank, libraryFunction("CommDeregister")
                    + " of an unknown handle (" + handle + "): this communicator did not register it");
        }
        if (!handle.isOpen()) {
            throw CollectivesException.violation(Rule.R6_LOCAL, rank, libraryFunction("CommDeregister") + " of the "
                    + handle + ", which was already deregistered");
        }
        handle.close();
    }

    /** One handle of {@code memory} was closed; the last one deregisters it. */
    void release(SimMemory memory) {
        synchronized (registrationCache) {
            int references = registrationCache.getOrDefault(memory, 0);
            if (references == 1) {
                registrationCache.remove(memory);
                memory.removeRegistration();
                ledger.registrations.decrementAndGet();
            } else if (references > 1) {
                registrationCache.put(memory, references - 1);
            }
        }
    }

    private boolean locallyRegistered(DeviceBuffer buffer) {
        synchronized (registrationCache) {
            return registrationCache.containsKey((SimMemory) buffer.memory());
        }
    }

    @Override
    public RegisteredWindow registerWindow(DeviceBuffer buffer, boolean symmetric) {
        requireUsable("registerWindow");
        Capabilities capabilities = config.capabilities();
        if (!capabilities.registration() || !capabilities.symmetricWindows()) {
            throw CollectivesException.library(Result.INVALID_USAGE, rank, libraryFunction("CommWindowRegister"),
                    "it returned a NULL window: library " + capabilities.libraryVersion()
                            + " has no symmetric window support on this communicator");
        }
        SimMemory memory = memoryOf(buffer, "registerWindow");
        List<WindowArrival> all = windowCall(new WindowArrival(true, buffer, symmetric));
        memory.addRegistration();
        ledger.windows.incrementAndGet();
        return new SimWindow(this, buffer, symmetric, all);
    }

    void deregisterWindow(SimWindow window) {
        try {
            windowCall(new WindowArrival(false, window.buffer(), window.symmetric()));
        } finally {
            ((SimMemory) window.buffer().memory()).removeRegistration();
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
    public void allReduce(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                          DataType type, ReduceOp op, Stream stream) {
        CallKind kind = CallKind.ALL_REDUCE;
        issue(stream, checked(kind, from(kind, "send", send, sendOffset, type), count,
                from(kind, "recv", recv, recvOffset, type), count, count, type, op, -1, 0));
    }

    @Override
    public void allGather(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long sendCount,
                          DataType type, Stream stream) {
        CallKind kind = CallKind.ALL_GATHER;
        issue(stream, checked(kind, from(kind, "send", send, sendOffset, type), sendCount,
                from(kind, "recv", recv, recvOffset, type), perRank(sendCount, type, "allGather"), sendCount, type,
                null, -1, (long) rank * sendCount));
    }

    @Override
    public void reduceScatter(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long recvCount,
                              DataType type, ReduceOp op, Stream stream) {
        CallKind kind = CallKind.REDUCE_SCATTER;
        issue(stream, checked(kind, from(kind, "send", send, sendOffset, type),
                perRank(recvCount, type, "reduceScatter"), from(kind, "recv", recv, recvOffset, type), recvCount,
                recvCount, type, op, -1, -(long) rank * recvCount));
    }

    @Override
    public void broadcast(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                          DataType type, int root, Stream stream) {
        checkPeer(root, "root");
        CallKind kind = CallKind.BROADCAST;
        issue(stream, checked(kind, rank == root ? from(kind, "send", send, sendOffset, type) : null, count,
                from(kind, "recv", recv, recvOffset, type), count, count, type, null, root, 0));
    }

    @Override
    public void reduce(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                       DataType type, ReduceOp op, int root, Stream stream) {
        checkPeer(root, "root");
        CallKind kind = CallKind.REDUCE;
        issue(stream, checked(kind, from(kind, "send", send, sendOffset, type), count,
                rank == root ? from(kind, "recv", recv, recvOffset, type) : null, count, count, type, op, root, 0));
    }

    @Override
    public void allToAll(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                         DataType type, Stream stream) {
        long total = perRank(count, type, "allToAll");
        CallKind kind = CallKind.ALL_TO_ALL;
        issue(stream, checked(kind, from(kind, "send", send, sendOffset, type), total,
                from(kind, "recv", recv, recvOffset, type), total, count, type, null, -1, 0));
    }

    @Override
    public void send(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        checkPeer(peer, "peer");
        issue(stream, checked(CallKind.SEND, from(CallKind.SEND, "send", buffer, offset, type), count, null, 0, count,
                type, null, peer, 0));
    }

    @Override
    public void recv(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        checkPeer(peer, "peer");
        issue(stream, checked(CallKind.RECV, null, 0, from(CallKind.RECV, "recv", buffer, offset, type), count, count,
                type, null, peer, 0));
    }

    @Override
    public void groupStart() {
        requireUsable("groupStart");
        groupState.get().depth++;
    }

    @Override
    public void groupEnd() {
        GroupState state = groupState.get();
        if (state.depth == 0) {
            throw CollectivesException.usage(rank, "groupEnd() without groupStart()");
        }
        if (--state.depth == 0 && !state.ops.isEmpty()) {
            List<OpCall> ops = List.copyOf(state.ops);
            SimStream stream = state.stream;
            state.ops.clear();
            state.stream = null;
            submit(stream, ops);
        }
    }

    /**
     * Checks an op's arguments: count and reduce op (R13), buffers on this rank's live memory and large enough, and
     * send and recv regions either in place (send {@code inPlaceShift} elements from recv) or disjoint (R7).
     */
    private OpCall checked(CallKind kind, DeviceBuffer send, long sendCount, DeviceBuffer recv, long recvCount,
                           long count, DataType type, ReduceOp op, int peer, long inPlaceShift) {
        requireUsable(kind.toString());
        if (count < 0) {
            throw CollectivesException.violation(Rule.R13_TYPES, rank, kind + ": count " + count + " is negative");
        }
        if (op != null && !op.suits(type)) {
            throw CollectivesException.violation(Rule.R13_TYPES, rank, kind + ": " + op + " does not suit " + type
                    + " (AVG needs a floating-point type)");
        }
        // Only the root's send of a broadcast and the root's recv of a reduce matter.
        boolean sendRequired = kind != CallKind.RECV && !(kind == CallKind.BROADCAST && rank != peer);
        boolean recvRequired = kind != CallKind.SEND && !(kind == CallKind.REDUCE && rank != peer);
        requireRoom(kind, "send", send, sendRequired, sendCount, type);
        requireRoom(kind, "recv", recv, recvRequired, recvCount, type);
        if (send != null && recv != null) {
            // addresses compared, shown as bytes from the send allocation's head, as bind shows them
            long sendHead = send.address() - send.headOffset();
            long recvStart = recv.address() - sendHead;
            ByteRanges.requireInPlaceOrApart(rank, kind.toString(), inPlaceShift * type.size(), send.headOffset(),
                    send.headOffset() + sendCount * type.size(), recvStart, recvStart + recvCount * type.size());
        }
        return new OpCall(kind, send, recv, count, type, op, peer, null, null);
    }

    /**
     * The part of {@code buffer} from {@code offset} elements of {@code type} on (the buffer itself at offset 0), for
     * {@link #checked} to check the op's room in; an offset outside the buffer is refused here.
     */
    private DeviceBuffer from(CallKind kind, String role, DeviceBuffer buffer, long offset, DataType type) {
        if (offset == 0 || buffer == null) {
            return buffer;
        }
        long elements = buffer.sizeBytes() / type.size();
        if (offset < 0 || offset > elements) {
            throw CollectivesException.usage(rank, kind + ": the " + role + " offset " + offset + " x " + type
                    + " lies outside the " + role + " buffer " + buffer);
        }
        return buffer.view(offset * type.size(), type, elements - offset);
    }

    private void requireRoom(CallKind kind, String role, DeviceBuffer buffer, boolean required, long elements,
                             DataType type) {
        if (buffer == null) {
            if (required) {
                throw CollectivesException.usage(rank, kind + ": the " + role + " buffer is null");
            }
            return;
        }
        memoryOf(buffer, kind.toString());
        long needed = elements * type.size();
        if (buffer.sizeBytes() < needed) {
            throw CollectivesException.usage(rank, kind + ": the " + role + " buffer " + buffer + " holds "
                    + buffer.sizeBytes() + " bytes, but " + elements + " x " + type + " need " + needed);
        }
    }

    /** {@code count} elements from or for each rank: {@code count × size()}; R13 if the byte size overflows. */
    private long perRank(long count, DataType type, String what) {
        return bytes(count, type, size(), what) / type.size();
    }

    /** {@code count × type.size() × factor} bytes; R13 if negative or overflowing. */
    private long bytes(long count, DataType type, int factor, String what) {
        try {
            if (count < 0) {
                throw new ArithmeticException("negative");
            }
            return Math.multiplyExact(Math.multiplyExact(count, (long) type.size()), (long) factor);
        } catch (ArithmeticException e) {
            throw CollectivesException.violation(Rule.R13_TYPES, rank, what + ": " + count + " x " + type
                    + (factor == 1 ? "" : " x " + factor + " ranks") + " is negative or overflows a byte size");
        }
    }

    private void checkPeer(int peer, String role) {
        if (peer < 0 || peer >= size()) {
            throw CollectivesException.usage(rank, role + " " + peer + " is not a rank of this communicator of "
                    + size() + " ranks");
        }
    }

    /** The sim memory behind {@code buffer}, which must be live memory of this rank. */
    private SimMemory memoryOf(DeviceBuffer buffer, String what) {
        if (buffer == null) {
            throw CollectivesException.usage(rank, what + ": the buffer is null");
        }
        if (!(buffer.memory() instanceof SimMemory) || ((SimMemory) buffer.memory()).rank() != device) {
            throw CollectivesException.usage(rank, what + ": " + buffer + " is not memory of rank " + rank
                    + "'s simulated device (device " + device + ")");
        }
        if (buffer.memory().isClosed()) {
            throw CollectivesException.usage(rank, what + ": " + buffer + " was already freed");
        }
        return (SimMemory) buffer.memory();
    }

    // ---- issuing and running work ------------------------------------------------------------------------

    private void issue(Stream stream, OpCall call) {
        SimStream s = streamOf(stream);
        GroupState state = groupState.get();
        if (state.depth > 0) {
            if (state.stream != null && state.stream != s) {
                throw CollectivesException.usage(rank, "the ops of one group must go to one stream: " + call.describe()
                        + " goes to " + s + ", earlier ones to " + state.stream);
            }
            state.stream = s;
            state.ops.add(call);
            return;
        }
        submit(s, List.of(call));
    }

    /** One step (an op or a group) into the stream's capture, or onto the stream. */
    private void submit(SimStream stream, List<OpCall> step) {
        boolean capturing = stream.isCapturedBy(Thread.currentThread());
        List<OpCall> flagged = new ArrayList<>(step.size());
        for (OpCall call : step) {
            OpCall f = call.withRegistration(registration(call.send(), capturing),
                    registration(call.recv(), capturing));
            flagged.add(f);
            recorder.enqueued(f.kind().toString(), f.send(), 0, f.recv(), 0, f.count(), f.type(), f.peer(), stream,
                    capturing, f.registered());
        }
        if (capturing) {
            stream.capture(this, flagged);
        } else {
            stream.enqueue(() -> launch(List.of(flagged), false));
        }
    }

    /**
     * Locally registered, or graph-registered: VMM memory captured in a graph (R4), where the library supports
     * registration.
     */
    /**
     * Whether the library registers {@code buffer} for an op: locally registered, or captured into a graph when the
     * library registers at capture, which it does for VMM memory, and for legacy memory ({@code cudaMalloc}) too
     * when the legacy-registration variable is "1" (R9), as NCCL with {@code NCCL_LEGACY_CUDA_REGISTER=1} does.
     */
    private Boolean registration(DeviceBuffer buffer, boolean captured) {
        if (buffer == null) {
            return null;
        }
        boolean graphRegistered = captured && config.capabilities().registration()
                && (buffer.memory().isVirtualMemory() || buffer.allocator() == Allocator.LEGACY
                && environment(legacyRegisterVariable()).equals(Optional.of("1")));
        return graphRegistered || locallyRegistered(buffer);
    }

    void launchGraph(List<List<OpCall>> steps, Stream stream) {
        requireUsable("graph launch");
        SimStream s = streamOf(stream);
        if (s.isCapturedBy(Thread.currentThread())) {
            throw CollectivesException.usage(rank, "launching a graph into " + s + " while capturing it is not"
                    + " supported");
        }
        s.enqueue(() -> launch(steps, true));
    }

    /**
     * Pins the ops' memory until they ran, then numbers them for matching across ranks, in issue order. Called with
     * the stream's monitor held (see {@link SimStream#enqueue}).
     */
    private synchronized Work launch(List<List<OpCall>> steps, boolean fromGraph) {
        group.requireNotAborted(rank, fromGraph ? "graph launch" : steps.get(0).get(0).describe());
        List<SimMemory.Pin> pinned = new ArrayList<>();
        try {
            for (List<OpCall> step : steps) {
                for (OpCall call : step) {
                    pin(call.send(), call, false, pinned);
                    pin(call.recv(), call, true, pinned);
                }
            }
        } catch (RuntimeException e) {
            pinned.forEach(SimMemory.Pin::release);
            throw e;
        }
        List<List<Launched>> launched = new ArrayList<>(steps.size());
        for (List<OpCall> step : steps) {
            List<Launched> ops = new ArrayList<>(step.size());
            for (OpCall call : step) {
                ops.add(new Launched(call, fromGraph, nextSeq(call)));
            }
            launched.add(ops);
        }
        return new Work(this, launched, pinned);
    }

    private static void pin(DeviceBuffer buffer, OpCall call, boolean writes, List<SimMemory.Pin> pinned) {
        if (buffer != null) {
            SimMemory memory = (SimMemory) buffer.memory();
            // an op of no elements touches no bytes
            long bytes = call.count() == 0 ? 0 : buffer.sizeBytes();
            pinned.add(memory.pin(call.describe(), buffer.headOffset(), bytes, writes));
        }
    }

    private long nextSeq(OpCall call) {
        if (call.kind().isCollective()) {
            return collectiveSeq++;
        }
        long[] counters = peerSeqs.computeIfAbsent(call.peer(), p -> new long[2]);
        return counters[call.kind() == CallKind.SEND ? 0 : 1]++;
    }

    /** Runs one stream item on the stream's worker: each step posts its sends and recvs, runs its collectives in
     *  order, then waits for its sends and recvs. Every op runs even after one failed; the first failure is thrown. */
    void execute(List<List<Launched>> steps) {
        RuntimeException first = null;
        for (List<Launched> step : steps) {
            List<Runnable> posted = new ArrayList<>();
            for (Launched op : step) {
                if (!op.call().kind().isCollective()) {
                    try {
                        posted.add(group.post(rank, op));
                    } catch (RuntimeException e) {
                        first = first == null ? e : first;
                    }
                }
            }
            for (Launched op : step) {
                if (op.call().kind().isCollective()) {
                    try {
                        group.requireNotAborted(rank, op.call().describe());
                        group.collective(rank, op);
                    } catch (RuntimeException e) {
                        first = first == null ? e : first;
                    }
                }
            }
            for (Runnable completion : posted) {
                try {
                    completion.run();
                } catch (RuntimeException e) {
                    first = first == null ? e : first;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    // ---- memory and streams owned elsewhere ---------------------------------------------------------------

    /**
     * Any memory the simulated driver allocated (the project's own or a {@link SimForeignMemory}), classified as a
     * GPU's driver classifies an address.
     */
    @Override
    public DeviceBuffer wrap(long address, long bytes, DataType type) {
        requireOpen("wrap");
        ForeignMemory.Classification found = Allocation.classify(address);
        long count = ForeignMemory.check(rank, device, address, bytes, type, found);
        SimMemory memory = Allocation.wrap(device, address, found,
                ForeignMemory.describe(found, "{cuda,musa}Malloc"));
        return DeviceBuffer.wrapped(memory, address - found.head(), type, count);
    }

    /** A stream of this rank's device, found by its handle: a {@link SimForeignStream} or any communicator's. */
    @Override
    public Stream wrapStream(long handle) {
        requireOpen("wrapStream");
        SimStream target = SimStream.byHandle(handle);
        if (target == null) {
            throw CollectivesException.usage(rank, "wrapStream(0x" + Long.toHexString(handle) + "): no live stream "
                    + "of the simulated devices has that handle");
        }
        return new WrappedSimStream(streamOf(target), this);
    }

    // ---- streams and lifetime ----------------------------------------------------------------------------

    @Override
    public synchronized Stream createStream() {
        requireUsable("createStream");
        SimStream stream = new SimStream(this, device, "sim-device-" + device + "-rank-" + rank + "-of-" + size()
                + "-stream-" + streams.size());
        streams.add(stream);
        return stream;
    }

    /** The stream behind {@code stream}: one of this rank's device, made here or wrapped. */
    private SimStream streamOf(Stream stream) {
        SimStream s = stream instanceof WrappedSimStream ? ((WrappedSimStream) stream).target()
                : stream instanceof SimStream ? (SimStream) stream : null;
        if (s == null || s.device() != device) {
            throw CollectivesException.usage(rank, stream + " is not a stream of rank " + rank + "'s device (device "
                    + device + ")");
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
        return group.split(rank, seq, color, key).map(this::adopt);
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
        return adopt(group.shrink(rank, seq, excluded));
    }

    private SimCommunicator adopt(CommGroup.Member member) {
        return children.adopt(new SimCommunicator(member.rank(), device, member.group().config(), member.group(),
                new Ledger(), children));
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
            throw CollectivesException.usage(rank, "communicator closed with live resources: " + left
                    + "; close graphs, windows, registrations and memory before the communicator");
        }
    }

    @Override
    public String toString() {
        return "sim communicator, rank " + rank + " of " + size() + (siblings == null ? "" : " (a child, on device "
                + device + ")");
    }

    /** The ops a thread collects between groupStart and groupEnd. */
    private static final class GroupState {
        int depth;
        final List<OpCall> ops = new ArrayList<>();
        SimStream stream;
    }
}
