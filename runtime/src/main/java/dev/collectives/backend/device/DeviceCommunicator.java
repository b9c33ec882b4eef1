package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.device.internal.NativeBaseline;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.ForeignMemory;
import dev.collectives.runtime.QualifiedVmmAllocator;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.Topology;
import dev.collectives.runtime.VirtualMemory;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.internal.AllocatorRule;
import dev.collectives.runtime.internal.LegacyRegistrationRule;
import dev.collectives.runtime.spi.ChildCommunicators;
import dev.collectives.runtime.spi.FlightEvents;
import dev.collectives.runtime.spi.FlightRecorder;
import dev.collectives.runtime.spi.HostStaging;
import org.bytedeco.javacpp.LongPointer;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import jdk.jfr.Event;

/**
 * One rank's communicator on one device. Collective calls are one native call each on primitive handles, with
 * bounds checks in Java and no allocation. Registration (R6, R9), windows (R10, R12), custom allocators (R11)
 * and graph lifetime (R5) are checked here as the sim checks them.
 */
public final class DeviceCommunicator implements Communicator, NativeBaseline, HostStaging.Provider {
    /** The ops of {@code cx_bench_enqueue}, the C loop of the benchmarks' {@link NativeBaseline}. */
    private static final int LOOP_ALL_REDUCE = 0;
    private static final int LOOP_ALL_GATHER = 1;
    private static final int LOOP_REDUCE_SCATTER = 2;
    private static final int LOOP_GRAPH_LAUNCH = 3;

    private static final int WINDOW_ALIGNMENT = 4096;
    private static final int WIN_COLL_SYMMETRIC = 1;
    private static final int ATTRIBUTE_MULTICAST_SUPPORTED = 132;
    /** Where native aborts run, off the caller's thread and under a deadline. */
    private static final AbortWatch ABORTS = AbortWatch.fromSystemProperties();
    private static final System.Logger LOG = System.getLogger("dev.collectives.device");
    private static final int SHRINK_DEFAULT = 0;
    private static final int SHRINK_ABORT = 1;

    private final NativeLibrary library;
    private final long lib;
    private final long handle;
    private final int rank;
    private final int size;
    private final int device;
    private final Topology topology;
    private final boolean collnetRequested;
    private final Set<Object> live = ConcurrentHashMap.newKeySet();
    private final Object stateLock = new Object();
    private final int[] asyncError = new int[1];
    private final DeviceVirtualMemory vmm = new DeviceVirtualMemory(this, Allocator.VMM);
    private final DeviceVirtualMemory customVmm = new DeviceVirtualMemory(this, Allocator.CUSTOM);
    private volatile State state = State.OPEN;
    /** Whether a release after the abort failed and was reported. */
    private final AtomicBoolean releaseFailed = new AtomicBoolean();
    /** The job, watched through its rendezvous where this communicator was joined through a TCP one. */
    private volatile JobWatch job = JobWatch.NONE;
    private volatile Capabilities capabilities;
    private volatile long granularity;
    private final ChildCommunicators children = new ChildCommunicators();
    /** The parent's open children, which this one leaves when it closes; null for a communicator without parent. */
    private final ChildCommunicators siblings;
    private final FlightRecorder recorder;

    private enum State { OPEN, ABORTED, CLOSED }

    DeviceCommunicator(NativeLibrary library, long handle, int rank, int size, int device, Topology topology,
                       boolean collnetRequested) {
        this(library, handle, rank, size, device, topology, collnetRequested, null);
    }

    private DeviceCommunicator(NativeLibrary library, long handle, int rank, int size, int device, Topology topology,
                               boolean collnetRequested, ChildCommunicators siblings) {
        this.siblings = siblings;
        this.library = library;
        this.lib = library.lib;
        this.handle = handle;
        this.rank = rank;
        this.size = size;
        this.device = device;
        this.topology = topology;
        this.collnetRequested = collnetRequested;
        this.recorder = FlightRecorder.open(this, rank, size, library.dialect.backendName());
    }

    NativeLibrary library() {
        return library;
    }

    /**
     * Keeps {@code rendezvous} open as this communicator's job watch (or closes it, where it cannot watch): a job
     * failure it reports aborts the communicator behind, and every failure this rank meets from then on names it.
     */
    void watchJob(Rendezvous rendezvous) {
        job = JobWatch.start(rendezvous, this::abortBehind);
    }

    long handle() {
        return handle;
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

    /** The library's version code, e.g. 22809. */
    public int libraryVersionCode() {
        return library.version;
    }

    void track(Object resource) {
        live.add(resource);
    }

    void untrack(Object resource) {
        live.remove(resource);
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
        Capabilities c = capabilities;
        if (c == null) {
            capabilities = c = probeCapabilities();
        }
        return c;
    }

    private Capabilities probeCapabilities() {
        boolean mccl = library.dialect == Dialect.MCCL;
        String prefix = library.dialect.backendName().toUpperCase(Locale.ROOT);
        int[] multicast = new int[1];
        boolean multicastDevice = NativeShim.deviceAttribute(lib, device, ATTRIBUTE_MULTICAST_SUPPORTED, multicast) == 0
                && multicast[0] != 0;
        boolean sharp = size > 1 && multicastDevice && !"0".equals(System.getenv(prefix + "_NVLS_ENABLE"));
        boolean collnet = collnetRequested || "1".equals(System.getenv(prefix + "_COLLNET_ENABLE"));
        boolean registration = !mccl || library.version >= 22809;
        boolean windows = library.has(NativeLibrary.Slots.WINDOW_REGISTER)
                && library.has(NativeLibrary.Slots.WINDOW_DEREGISTER)
                && library.version >= (mccl ? 22809 : 22700);
        boolean helpers = library.has(NativeLibrary.Slots.WIN_GET_USER_PTR)
                && library.has(NativeLibrary.Slots.GET_LSA_DEVICE_POINTER);
        boolean fabric = NativeShim.vmmFabricSupported(lib, device) != 0;
        return new Capabilities(library.versionString(), sharp, collnet && topology.ranksPerNode() == 1, registration,
                windows, windows && helpers, fabric, false, false);
    }

    @Override
    public Optional<String> environment(String name) {
        return Optional.ofNullable(System.getenv(name));
    }

    @Override
    public String legacyRegisterVariable() {
        return library.dialect.legacyRegisterVariable();
    }

    @Override
    public String libraryFunction(String name) {
        return library.dialect.ccl(name);
    }

    @Override
    public long granularity() {
        long g = granularity;
        if (g == 0) {
            granularity = g = vmm.granularity(qualifiedHandleTypes());
        }
        return g;
    }

    private Set<HandleType> qualifiedHandleTypes() {
        Set<HandleType> handles = EnumSet.of(HandleType.POSIX_FILE_DESCRIPTOR);
        if (capabilities().fabricHandles()) {
            handles.add(HandleType.FABRIC);
        }
        return handles;
    }

    /** For custom allocators; what it maps is labelled CUSTOM. */
    @Override
    public VirtualMemory virtualMemory() {
        return customVmm;
    }

    // ---- memory --------------------------------------------------------------------------------------------

    @Override
    public DeviceBuffer allocate(Allocator allocator, DataType type, long count) {
        requireOpen();
        long bytes = bytes(type, count);
        DeviceMemory memory;
        switch (allocator) {
            case MEM_ALLOC:
                memory = NativeMemory.memAlloc(this, bytes);
                break;
            case LEGACY:
                memory = NativeMemory.legacy(this, bytes);
                break;
            case VMM:
                memory = new QualifiedVmmAllocator().allocate(vmm, bytes);
                break;
            default:
                throw CollectivesException.usage(rank, "allocate(" + allocator + ") needs a DeviceAllocator: use "
                        + "allocate(DeviceAllocator, type, count)");
        }
        return DeviceBuffer.root(memory, type, count);
    }

    /**
     * Pinned host memory mapped into the device ({@link NativeMemory#mappedHost}), where the per-call check
     * gathers its digests; empty where the library lacks the calls. The library takes such memory as a collective's
     * buffers as long as it is not registered with it, and a staging is never registered.
     */
    @Override
    public Optional<HostStaging> allocateStaging(long bytes) {
        requireOpen();
        if (!library.has(NativeLibrary.Slots.MALLOC_HOST) || !library.has(NativeLibrary.Slots.FREE_HOST)
                || !library.has(NativeLibrary.Slots.HOST_GET_DEVICE_POINTER)) {
            return Optional.empty();
        }
        NativeMemory memory = NativeMemory.mappedHost(this, bytes);
        return Optional.of(new HostStaging(DeviceBuffer.root(memory, DataType.UINT8, bytes), memory.hostBuffer()));
    }

    @Override
    public DeviceBuffer allocate(DeviceAllocator allocator, DataType type, long count) {
        requireOpen();
        long bytes = bytes(type, count);
        DeviceMemory memory = allocator.allocate(customVmm, bytes);
        try {
            AllocatorRule.check(allocator.getClass(), memory, granularity(), capabilities().fabricHandles(), rank);
            if (memory.size() < bytes) {
                throw CollectivesException.violation(Rule.R11_ALLOCATOR, rank, AllocatorRule.nameOf(allocator.getClass())
                        + " returned " + memory.size() + " bytes for a request of " + bytes);
            }
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
        return DeviceBuffer.root(memory, type, count);
    }

    private long bytes(DataType type, long count) {
        if (count <= 0) {
            throw CollectivesException.violation(Rule.R13_TYPES, rank, "count " + count + " of " + type
                    + " is not positive");
        }
        try {
            return Math.multiplyExact(count, (long) type.size());
        } catch (ArithmeticException e) {
            throw CollectivesException.violation(Rule.R13_TYPES, rank, count + " x " + type + " overflows");
        }
    }

    private NativeMemory nativeMemory(DeviceBuffer buffer, String what) {
        DeviceMemory memory = buffer.memory();
        if (!(memory instanceof NativeMemory) || memory.isClosed()) {
            throw CollectivesException.usage(rank, what + " needs live memory of this backend, not " + memory);
        }
        return (NativeMemory) memory;
    }

    // ---- registration --------------------------------------------------------------------------------------

    @Override
    public RegistrationHandle register(DeviceBuffer buffer) {
        requireOpen();
        NativeMemory memory = nativeMemory(buffer, "register");
        if (!capabilities().registration()) {
            throw CollectivesException.usage(rank, library.dialect.ccl("CommRegister") + " needs library 2.28.9 or "
                    + "later; this is " + library.versionString());
        }
        LegacyRegistrationRule.check(this, buffer);
        AllocatorRule.checkForeign(this, buffer, "buffer " + buffer);
        long[] out = new long[1];
        Event event = FlightEvents.registrationStarted();
        library.check(NativeShim.commRegister(lib, handle, memory.address(), memory.size(), out), rank, handle,
                "CommRegister");
        FlightEvents.registrationDone(event, this, "CommRegister", memory.size());
        return new DeviceRegistration(this, buffer, memory, out[0]);
    }

    @Override
    public RegisteredWindow registerWindow(DeviceBuffer buffer, boolean symmetric) {
        requireOpen();
        NativeMemory memory = nativeMemory(buffer, "registerWindow");
        if (!library.has(NativeLibrary.Slots.WINDOW_REGISTER)) {
            throw CollectivesException.usage(rank, library.dialect.backendName() + " " + library.versionString()
                    + " lacks " + library.symbol(NativeLibrary.Slots.WINDOW_REGISTER));
        }
        if (!memory.isVirtualMemory()) {
            throw CollectivesException.violation(Rule.R12_WINDOW, rank, "window on " + buffer + ": legacy memory "
                    + "cannot back a window; allocate it with MEM_ALLOC, VMM or a qualified allocator");
        }
        if (buffer.address() % WINDOW_ALIGNMENT != 0) {
            throw CollectivesException.violation(Rule.R12_WINDOW, rank, "window on " + buffer + ": head 0x"
                    + Long.toHexString(buffer.address()) + " is not aligned to " + WINDOW_ALIGNMENT + " bytes");
        }
        long[] out = new long[1];
        library.check(NativeShim.windowRegister(lib, handle, buffer.address(), buffer.sizeBytes(),
                symmetric ? WIN_COLL_SYMMETRIC : 0, out), rank, handle, "CommWindowRegister");
        if (out[0] == 0) {
            throw CollectivesException.library(Result.INVALID_USAGE, rank,
                    library.symbol(NativeLibrary.Slots.WINDOW_REGISTER), "returned a NULL window: this communicator "
                            + "has no " + (symmetric ? "symmetric " : "") + "window support");
        }
        return new DeviceWindow(this, buffer, memory, out[0], symmetric);
    }

    // ---- collectives ---------------------------------------------------------------------------------------

    @Override
    public void allReduce(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                          DataType type, ReduceOp op, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = count * type.size();
        long sendAddress = address(send, sendOffset, bytes, type, "send");
        long recvAddress = address(recv, recvOffset, bytes, type, "recv");
        recorder.enqueued("allReduce", send, sendOffset, recv, recvOffset, count, type, -1, s, s.capturing(), null);
        done(NativeShim.allReduce(lib, sendAddress, recvAddress, count, type.code(), op.code(), handle, s.handle),
                "AllReduce", type, s, send, recv);
    }

    @Override
    public void allGather(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long sendCount,
                          DataType type, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = sendCount * type.size();
        long sendAddress = address(send, sendOffset, bytes, type, "send");
        long recvAddress = address(recv, recvOffset, bytes * size, type, "recv");
        recorder.enqueued("allGather", send, sendOffset, recv, recvOffset, sendCount, type, -1, s, s.capturing(), null);
        done(NativeShim.allGather(lib, sendAddress, recvAddress, sendCount, type.code(), handle, s.handle),
                "AllGather", type, s, send, recv);
    }

    @Override
    public void reduceScatter(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long recvCount,
                              DataType type, ReduceOp op, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = recvCount * type.size();
        long sendAddress = address(send, sendOffset, bytes * size, type, "send");
        long recvAddress = address(recv, recvOffset, bytes, type, "recv");
        recorder.enqueued("reduceScatter", send, sendOffset, recv, recvOffset, recvCount, type, -1, s, s.capturing(),
                null);
        done(NativeShim.reduceScatter(lib, sendAddress, recvAddress, recvCount, type.code(), op.code(), handle,
                s.handle), "ReduceScatter", type, s, send, recv);
    }

    @Override
    public void broadcast(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                          DataType type, int root, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = count * type.size();
        peer(root, "root");
        long sendAddress = address(send, sendOffset, bytes, type, "send");
        long recvAddress = address(recv, recvOffset, bytes, type, "recv");
        recorder.enqueued("broadcast", send, sendOffset, recv, recvOffset, count, type, root, s, s.capturing(), null);
        done(NativeShim.broadcast(lib, sendAddress, recvAddress, count, type.code(), root, handle, s.handle),
                "Broadcast", type, s, send, recv);
    }

    @Override
    public void reduce(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                       DataType type, ReduceOp op, int root, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = count * type.size();
        peer(root, "root");
        long sendAddress = address(send, sendOffset, bytes, type, "send");
        long recvAddress = address(recv, recvOffset, bytes, type, "recv");
        recorder.enqueued("reduce", send, sendOffset, recv, recvOffset, count, type, root, s, s.capturing(), null);
        done(NativeShim.reduce(lib, sendAddress, recvAddress, count, type.code(), op.code(), root, handle, s.handle),
                "Reduce", type, s, send, recv);
    }

    /** {@code AlltoAll} where the library has it, else the equivalent group of sends and receives. */
    @Override
    public void allToAll(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                         DataType type, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = count * type.size();
        long sendAddress = address(send, sendOffset, bytes * size, type, "send");
        long recvAddress = address(recv, recvOffset, bytes * size, type, "recv");
        recorder.enqueued("allToAll", send, sendOffset, recv, recvOffset, count, type, -1, s, s.capturing(), null);
        if (library.has(NativeLibrary.Slots.ALL_TO_ALL)) {
            done(NativeShim.allToAll(lib, sendAddress, recvAddress, count, type.code(), handle, s.handle),
                    "AlltoAll", type, s, send, recv);
            return;
        }
        groupStart();
        try {
            for (int peer = 0; peer < size; peer++) {
                done(NativeShim.send(lib, sendAddress + peer * bytes, count, type.code(), peer, handle, s.handle),
                        "Send", type, s, send, send);
                done(NativeShim.recv(lib, recvAddress + peer * bytes, count, type.code(), peer, handle, s.handle),
                        "Recv", type, s, recv, recv);
            }
        } finally {
            groupEnd();
        }
    }

    @Override
    public void send(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        DeviceStream s = enqueue(stream);
        peer(peer, "peer");
        long address = address(buffer, offset, count * type.size(), type, "send");
        recorder.enqueued("send", buffer, offset, null, 0, count, type, peer, s, s.capturing(), null);
        done(NativeShim.send(lib, address, count, type.code(), peer, handle, s.handle), "Send", type, s, buffer, buffer);
    }

    @Override
    public void recv(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        DeviceStream s = enqueue(stream);
        peer(peer, "peer");
        long address = address(buffer, offset, count * type.size(), type, "recv");
        recorder.enqueued("recv", null, 0, buffer, offset, count, type, peer, s, s.capturing(), null);
        done(NativeShim.recv(lib, address, count, type.code(), peer, handle, s.handle), "Recv", type, s, buffer, buffer);
    }

    @Override
    public void groupStart() {
        library.check(NativeShim.groupStart(lib), rank, handle, "GroupStart");
    }

    @Override
    public void groupEnd() {
        library.check(NativeShim.groupEnd(lib), rank, handle, "GroupEnd");
    }

    private DeviceStream enqueue(Stream stream) {
        requireOpen();
        return streamOf(stream);
    }

    DeviceStream streamOf(Stream stream) {
        if (!(stream instanceof DeviceStream)) {
            throw CollectivesException.usage(rank, "stream " + stream + " is not a stream of this backend");
        }
        return (DeviceStream) stream;
    }

    /**
     * The device address {@code offset} elements of {@code type} into {@code buffer}, which must hold the op's
     * {@code bytes} from there; a primitive, so an op at an offset allocates nothing.
     */
    private long address(DeviceBuffer buffer, long offset, long bytes, DataType type, String role) {
        long room = buffer.sizeBytes();
        if (buffer.memory().isClosed()) {
            throw CollectivesException.usage(rank, role + " buffer " + buffer + " was freed");
        }
        if (offset < 0 || bytes < 0 || bytes > room || offset > (room - bytes) / type.size()) {
            throw CollectivesException.usage(rank, role + " buffer " + buffer + " holds fewer than the " + bytes
                    + " bytes the op needs" + (offset == 0 ? "" : " from element " + offset + " of " + type));
        }
        return buffer.address() + offset * type.size();
    }

    private void peer(int peer, String what) {
        if (peer < 0 || peer >= size) {
            throw CollectivesException.usage(rank, what + " " + peer + " is not a rank of this " + size
                    + "-rank communicator");
        }
    }

    private void done(int rc, String call, DataType type, DeviceStream stream, DeviceBuffer a, DeviceBuffer b) {
        if (rc != 0) {
            throw library.cclFailure(rc, rank, handle, library.dialect.ccl(call) + " of "
                    + library.dialect.typeName(type));
        }
        stream.used(a.memory());
        stream.used(b.memory());
    }

    // ---- memory and streams owned elsewhere ---------------------------------------------------------------

    /** Memory classified by the driver ({@link NativeMemory#classify}); the buffer frees nothing. */
    @Override
    public DeviceBuffer wrap(long address, long bytes, DataType type) {
        requireOpen();
        ForeignMemory.Classification found = NativeMemory.classify(this, address);
        long count = ForeignMemory.check(rank, device, address, bytes, type, found);
        return DeviceBuffer.wrapped(NativeMemory.foreign(this, found), address - found.head(), type, count);
    }

    /** A framework's stream on this device, by its {@code cudaStream_t}/{@code musaStream_t}. */
    @Override
    public Stream wrapStream(long streamHandle) {
        requireOpen();
        return new DeviceStream(this, streamHandle);
    }

    // ---- streams and lifetime ------------------------------------------------------------------------------

    @Override
    public Stream createStream() {
        requireOpen();
        return new DeviceStream(this);
    }

    /**
     * Throws the communicator's asynchronous error, if any, or that it was aborted or closed. A communicator with an
     * asynchronous error (a peer died, the network failed) cannot finish its work or be finalized: it is aborted
     * first, which frees what the library holds for it.
     */
    void checkAsyncError() {
        int error;
        synchronized (stateLock) {
            requireOpen();
            library.check(NativeShim.commAsyncError(lib, handle, asyncError), rank, handle, "CommGetAsyncError");
            error = asyncError[0];
        }
        if (isFailure(error)) {
            CollectivesException failure = library.cclFailure(error, rank, handle,
                    library.dialect.ccl("CommGetAsyncError") + " (an enqueued operation)",
                    "; the communicator was aborted" + job.cause().map(why -> "; the job failed: " + why).orElse(""));
            abortBehind();
            throw failure;
        }
    }

    /**
     * This rank waited longer than {@code timeoutSeconds} for {@code what} to complete: aborts the communicator
     * behind, and returns the failure to throw, naming the ranks that never arrived where the job's verdict does.
     */
    CollectivesException stalled(String what, long timeoutSeconds) {
        Optional<String> verdict = job.stalled("waited " + timeoutSeconds + " s for " + what + "; "
                + recorder.position());
        abortBehind();
        return CollectivesException.library(Result.REMOTE_ERROR, rank, what, "no "
                + "completion within " + timeoutSeconds + " s" + verdict.map(why -> "; the job failed: " + why)
                .orElse("") + "; the communicator was aborted");
    }

    /** Whether an asynchronous error code says the communicator failed (not success, not still in progress). */
    private static boolean isFailure(int asyncError) {
        return asyncError != 0 && asyncError != Result.IN_PROGRESS.code();
    }

    /** Throws unless open: why the job failed where that aborted it, else its state. */
    private void requireOpen() {
        if (state != State.OPEN) {
            throw notOpen();
        }
    }

    private CollectivesException notOpen() {
        return job.failure().filter(why -> state == State.ABORTED)
                .map(why -> CollectivesException.library(Result.REMOTE_ERROR, rank,
                        "the communicator", "the job failed: " + why + "; the communicator was aborted"))
                .orElseGet(() -> CollectivesException.usage(rank, "communicator is "
                        + state.name().toLowerCase(Locale.ROOT)));
    }

    // ---- child communicators ------------------------------------------------------------------------------

    /** {@code ncclCommSplit} with the parent's config; the library returns no child for {@code NO_COLOR}. */
    @Override
    public Optional<Communicator> split(int color, int key) {
        ChildCommunicators.requireColor(rank, color);
        requireOpen();
        requireAvailable(NativeLibrary.Slots.COMM_SPLIT);
        long child;
        try (LongPointer out = new LongPointer(1)) {
            out.put(0L);
            library.check(NativeShim.commSplit(lib, handle, color, key, out), rank, handle, "CommSplit");
            child = out.get();
        }
        return child == 0 ? Optional.empty() : Optional.of(adopt(child));
    }

    /**
     * {@code ncclCommShrink} with the parent's config, and {@code NCCL_SHRINK_ABORT} when the communicator has an
     * asynchronous error (a peer failed), so that the library stops its pending work first.
     */
    @Override
    public Communicator shrink(int... excludedRanks) {
        int[] excluded = ChildCommunicators.excludedRanks(rank, size, excludedRanks);
        if (state == State.ABORTED) {
            throw CollectivesException.usage(rank, "shrink: the communicator was aborted" + job.failure()
                    .map(why -> " when the job failed (" + why + ")").orElse("") + ", and " + library.dialect.ccl(
                    "CommAbort") + " freed it: a communicator is aborted as soon as a failure of its peers is seen, "
                    + "to stop the library's pending work, so after a death the job recovers by joining anew; shrink "
                    + "away ranks that are alive before anything fails");
        }
        requireOpen();
        requireAvailable(NativeLibrary.Slots.COMM_SHRINK);
        int flags;
        synchronized (stateLock) {
            library.check(NativeShim.commAsyncError(lib, handle, asyncError), rank, handle, "CommGetAsyncError");
            flags = isFailure(asyncError[0]) ? SHRINK_ABORT : SHRINK_DEFAULT;
        }
        long[] out = new long[1];
        library.check(NativeShim.commShrink(lib, handle, excluded, excluded.length, out, flags), rank, handle,
                "CommShrink");
        return adopt(out[0]);
    }

    private void requireAvailable(int slot) {
        if (!library.has(slot)) {
            throw CollectivesException.usage(rank, library.symbol(slot) + " is not available in this library version ("
                    + library.dialect.backendName().toUpperCase(Locale.ROOT) + " " + library.versionString() + ")");
        }
    }

    /**
     * A child on this device, as the library numbered it. The library does not say which of this communicator's
     * ranks the child holds, so its topology assumes as many ranks per node as here (or all of its ranks, if
     * fewer): R8 may then refuse IB SHARP on a child that has one rank per node under a parent that has several.
     */
    private DeviceCommunicator adopt(long child) {
        int[] out = new int[1];
        int childSize;
        int childRank;
        try {
            library.check(NativeShim.commCount(lib, child, out), rank, child, "CommCount");
            childSize = out[0];
            library.check(NativeShim.commUserRank(lib, child, out), rank, child, "CommUserRank");
            childRank = out[0];
        } catch (CollectivesException e) {
            NativeShim.commAbort(lib, child);
            throw e;
        }
        Topology childTopology = new Topology(childSize, Math.min(childSize, topology.ranksPerNode()));
        return children.adopt(new DeviceCommunicator(library, child, childRank, childSize, device, childTopology,
                collnetRequested, children));
    }

    /**
     * Aborts the communicator: its operations under way on every thread end, and it is freed. The native abort runs
     * on a thread of its own under {@link AbortWatch}'s deadline; this returns when it has, or at the deadline.
     */
    @Override
    public void abort() {
        if (markAborted()) {
            job.abort("rank " + rank + " called abort()");
            recorder.aborted();
            ABORTS.runWithin(abortCall(), () -> NativeShim.commAbort(lib, handle))
                    .ifPresent(rc -> library.check(rc, rank, 0, "CommAbort"));
        }
    }

    @Override
    public FlightRecord flightRecord() {
        return recorder.snapshot();
    }

    /**
     * Aborts the communicator on a thread of its own and returns at once, so that the caller, who met a failure,
     * reports it without waiting for an abort that may block.
     */
    void abortBehind() {
        if (markAborted()) {
            ABORTS.start(abortCall(), () -> NativeShim.commAbort(lib, handle));
        }
    }

    /**
     * Runs {@code nativeRelease}, the free or destroy of something this communicator's work used. Once the
     * communicator was aborted with kernels in flight, the library can leave this process's device context in an
     * error state (NCCL 2.28.3 did, in a job whose peer died or never called: "an illegal memory access was
     * encountered" on every later call); a release's failure is then logged once, as a warning that says so, instead
     * of thrown over the failure the caller already has.
     */
    void release(Runnable nativeRelease) {
        try {
            nativeRelease.run();
        } catch (CollectivesException e) {
            if (state != State.ABORTED) {
                throw e;
            }
            if (releaseFailed.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, e.getMessage() + ", after " + this + " was aborted: the "
                        + "device context of this process may be unusable from now on; restart the process before "
                        + "using the device again");
            }
        }
    }

    /** Marks an open communicator aborted; whether it was open (so the caller is the one to abort it). */
    private boolean markAborted() {
        synchronized (stateLock) {
            if (state != State.OPEN) {
                return false;
            }
            state = State.ABORTED;
            return true;
        }
    }

    private String abortCall() {
        return library.dialect.ccl("CommAbort") + " of " + this;
    }

    boolean isAborted() {
        return state == State.ABORTED;
    }

    /**
     * Closes the open children first, then finalizes and destroys this one; refuses while memory, registrations or
     * windows made through it are live.
     */
    @Override
    public void close() {
        try {
            children.closeChildrenThen(this::closeThis);
        } finally {
            if (state == State.CLOSED || state == State.ABORTED) {
                job.close(); // after the communicator: a peer that fails while it finalizes is still named
            }
        }
    }

    private void closeThis() {
        synchronized (stateLock) {
            if (state == State.CLOSED) {
                return;
            }
            if (state == State.OPEN && !live.isEmpty()) {
                throw CollectivesException.usage(rank, "close the communicator's resources first: " + live);
            }
            boolean open = state == State.OPEN;
            state = State.CLOSED;
            recorder.closed();
            if (siblings != null) {
                siblings.forget(this);
            }
            if (open) {
                try {
                    library.check(NativeShim.commFinalize(lib, handle), rank, handle, "CommFinalize");
                } catch (CollectivesException e) {
                    // a communicator that cannot be finalized is aborted, so that its resources are freed anyway
                    ABORTS.runWithin(abortCall(), () -> NativeShim.commAbort(lib, handle))
                            .ifPresent(rc -> library.check(rc, rank, 0, "CommAbort"));
                    throw e;
                }
                library.check(NativeShim.commDestroy(lib, handle), rank, 0, "CommDestroy");
            }
        }
    }

    @Override
    public String toString() {
        return backendName() + " rank " + rank + "/" + size + " on device " + device;
    }

    // ---- the benchmarks' native baseline ----------------------------------------------------------------------

    @Override
    public void allReduceLoop(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op,
                              Stream stream, int iters) {
        enqueueLoop(LOOP_ALL_REDUCE, send.address(), recv.address(), count, type, op.code(), stream, iters,
                "AllReduce");
    }

    @Override
    public void allGatherLoop(DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type, Stream stream,
                              int iters) {
        enqueueLoop(LOOP_ALL_GATHER, send.address(), recv.address(), sendCount, type, 0, stream, iters, "AllGather");
    }

    @Override
    public void reduceScatterLoop(DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, ReduceOp op,
                                  Stream stream, int iters) {
        enqueueLoop(LOOP_REDUCE_SCATTER, send.address(), recv.address(), recvCount, type, op.code(), stream, iters,
                "ReduceScatter");
    }

    @Override
    public void launchLoop(GraphExec exec, Stream stream, int iters) {
        int rc = NativeShim.benchEnqueue(lib, LOOP_GRAPH_LAUNCH, DeviceGraph.execHandle(exec), 0, 0, 0, 0, handle,
                streamOf(stream).handle, iters);
        if (rc != 0) {
            library.checkRuntime(rc, rank, "GraphLaunch");
        }
    }

    private void enqueueLoop(int kind, long send, long recv, long count, DataType type, int op, Stream stream,
                             int iters, String call) {
        int rc = NativeShim.benchEnqueue(lib, kind, send, recv, count, type.code(), op, handle,
                streamOf(stream).handle, iters);
        if (rc != 0) {
            throw library.cclFailure(rc, rank, handle, library.dialect.ccl(call) + " of "
                    + library.dialect.typeName(type));
        }
    }
}
