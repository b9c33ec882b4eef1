package dev.collectives.runtime;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import java.time.Duration;
import java.util.Optional;

/**
 * One rank's view of an {@code ncclComm_t}/{@code mcclComm_t}. The collective methods enqueue work on {@code stream}
 * and return at once, like their C counterparts; buffers are passed as {@link DeviceBuffer}s with an element offset
 * where the op starts (or whose address is where it starts). Closing it destroys the communicator; memory,
 * registrations and windows made through it must be closed first, which {@link #close()} checks.
 *
 * <p>{@link #split} and {@link #shrink} make child communicators of some of the ranks, as {@code ncclCommSplit}
 * and {@code ncclCommShrink} (MCCL: {@code mcclCommSplit}, {@code mcclCommShrink}) do. A child is a communicator
 * like any other: pipelines bind on it, and every rule that spans ranks is checked among the child's ranks. It runs
 * on the same device as its parent, so the parent's streams and memory serve it too.
 */
public interface Communicator extends AutoCloseable {
    /** The color of a rank that takes part in {@link #split} but joins no child ({@code NCCL_SPLIT_NOCOLOR}). */
    int NO_COLOR = -1;

    /** This rank, from 0 to {@code size() - 1}. */
    int rank();

    /** The number of ranks of the communicator. */
    int size();

    /** The backend's name: "sim", "nccl", "mccl". */
    String backendName();

    /** How the ranks sit on nodes (R8: IB SHARP needs one rank per node). */
    Topology topology();

    /** What the library and the hardware offer: registration, SHARP, windows and their helpers, the version. */
    Capabilities capabilities();

    /** The environment the library sees (e.g. NCCL_LEGACY_CUDA_REGISTER/MCCL_LEGACY_MUSA_REGISTER, R9). */
    Optional<String> environment(String name);

    /** The name under which this library reads the legacy-registration switch (R9). */
    String legacyRegisterVariable();

    /**
     * This library's name for a function of the collective library given without its prefix, for messages and
     * {@link Pipeline#describe()}: "ncclCommRegister" on nccl and "mcclCommRegister" on mccl for "CommRegister";
     * "{nccl,mccl}CommRegister" on the sim, which stands for either library.
     */
    String libraryFunction(String name);

    /**
     * Why the checks across ranks are off on this communicator, or empty when they run. Bind's agreement (the
     * pipeline's fingerprint: R14, R1, R2) and the per-call check of step arguments are collectives that every rank
     * calls; a communicator formed from a unique id or wrapped from another library's handle may have ranks that do
     * not run this library ({@code Peers.FOREIGN}), which would never call them. There, bind checks every rule this
     * rank can check alone, and {@link Pipeline#describe()} says that the checks across ranks are off, and why.
     */
    default Optional<String> crossRankChecksOff() {
        return Optional.empty();
    }

    /** The device's recommended VMM granularity, in bytes (ncclMemAlloc/mcclMemAlloc rounds up to it). */
    long granularity();

    /** The backend's VMM facility, for custom allocators (R11). */
    VirtualMemory virtualMemory();

    // ---- memory ------------------------------------------------------------------------------------------

    /**
     * {@code ncclMemAlloc}/{@code mcclMemAlloc} (MEM_ALLOC), the project's qualified VMM allocator (VMM) or
     * {@code cudaMalloc}/{@code musaMalloc} (LEGACY).
     */
    DeviceBuffer allocate(Allocator allocator, DataType type, long count);

    /** Memory from a custom allocator; checked against R11 here. */
    DeviceBuffer allocate(DeviceAllocator allocator, DataType type, long count);

    // ---- registration ------------------------------------------------------------------------------------

    /**
     * {@code ncclCommRegister}/{@code mcclCommRegister} of the whole root allocation of {@code buffer} (R6). Close to
     * deregister.
     */
    RegistrationHandle register(DeviceBuffer buffer);

    /**
     * {@code ncclCommWindowRegister}/{@code mcclCommWindowRegister}, collective: every rank calls it (R12). Fails
     * with R12 if the memory is not VMM or ncclMemAlloc/mcclMemAlloc memory or not 4096-aligned.
     */
    RegisteredWindow registerWindow(DeviceBuffer buffer, boolean symmetric);

    // ---- collectives -------------------------------------------------------------------------------------

    // Each collective takes its buffers with an offset in elements of {@code type} from the buffer's start, so a
    // step can address a part of a buffer without making a slice per call; the offset-less forms are offset 0.
    // The op must lie inside the buffer from its offset on.

    /**
     * {@code ncclAllReduce/mcclAllReduce(send + sendOffset, recv + recvOffset, count, type, op, comm, stream)}.
     * Offsets and counts are in elements of {@code type}; the op must lie inside each buffer from its offset on.
     */
    default void allReduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            Stream stream) {
        call(OpKind.ALL_REDUCE, send, sendOffset, recv, recvOffset, count, type, op, -1, stream);
    }

    /** An allreduce from the start of both buffers. */
    default void allReduce(
            DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op, Stream stream) {
        allReduce(send, 0, recv, 0, count, type, op, stream);
    }

    /** {@code recv} receives {@code sendCount × size()} elements, rank r's at {@code r × sendCount}. */
    default void allGather(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long sendCount,
            DataType type,
            Stream stream) {
        call(OpKind.ALL_GATHER, send, sendOffset, recv, recvOffset, sendCount, type, null, -1, stream);
    }

    /** An allgather from the start of both buffers. */
    default void allGather(DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type, Stream stream) {
        allGather(send, 0, recv, 0, sendCount, type, stream);
    }

    /** {@code send} holds {@code recvCount × size()} elements; rank r receives the reduction of block r. */
    default void reduceScatter(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            DataType type,
            ReduceOp op,
            Stream stream) {
        call(OpKind.REDUCE_SCATTER, send, sendOffset, recv, recvOffset, recvCount, type, op, -1, stream);
    }

    /** A reducescatter from the start of both buffers. */
    default void reduceScatter(
            DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, ReduceOp op, Stream stream) {
        reduceScatter(send, 0, recv, 0, recvCount, type, op, stream);
    }

    /**
     * {@code ncclBroadcast}/{@code mcclBroadcast}: {@code count} elements of rank {@code root}'s send reach every
     * rank's recv. Offsets and counts are in elements of {@code type}; the op must lie inside each buffer from its
     * offset on.
     */
    default void broadcast(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            int root,
            Stream stream) {
        call(OpKind.BROADCAST, send, sendOffset, recv, recvOffset, count, type, null, root, stream);
    }

    /** A broadcast from the start of both buffers. */
    default void broadcast(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, int root, Stream stream) {
        broadcast(send, 0, recv, 0, count, type, root, stream);
    }

    /**
     * {@code ncclReduce}/{@code mcclReduce}: the reduction of every rank's send reaches rank {@code root}'s recv.
     * Offsets and counts are in elements of {@code type}; the op must lie inside each buffer from its offset on.
     */
    default void reduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int root,
            Stream stream) {
        call(OpKind.REDUCE, send, sendOffset, recv, recvOffset, count, type, op, root, stream);
    }

    /** A reduce from the start of both buffers. */
    default void reduce(
            DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op, int root, Stream stream) {
        reduce(send, 0, recv, 0, count, type, op, root, stream);
    }

    /** {@code count} elements to and from each rank: block j of send goes to rank j's block r. */
    default void allToAll(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            Stream stream) {
        call(OpKind.ALL_TO_ALL, send, sendOffset, recv, recvOffset, count, type, null, -1, stream);
    }

    /** An alltoall from the start of both buffers. */
    default void allToAll(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, Stream stream) {
        allToAll(send, 0, recv, 0, count, type, stream);
    }

    /**
     * {@code ncclGather}/{@code mcclGather}: every rank's {@code sendCount} elements reach rank {@code root}'s recv,
     * rank r's at element {@code r × sendCount}: the root's recv holds {@code sendCount × size()}. Only the root uses
     * recv: another rank may pass null, and a buffer it passes is neither checked nor touched. Where the library has
     * no gather, a group of sends and receives does the same.
     */
    default void gather(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long sendCount,
            DataType type,
            int root,
            Stream stream) {
        call(OpKind.GATHER, send, sendOffset, recv, recvOffset, sendCount, type, null, root, stream);
    }

    /** A gather from the start of both buffers. */
    default void gather(DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type, int root, Stream stream) {
        gather(send, 0, recv, 0, sendCount, type, root, stream);
    }

    /**
     * {@code ncclScatter}/{@code mcclScatter}: rank {@code root}'s send holds {@code recvCount × size()} elements,
     * and rank r receives those from element {@code r × recvCount}. Only the root uses send: another rank may pass
     * null, and a buffer it passes is neither checked nor touched. Where the library has no scatter, a group of
     * sends and receives does the same.
     */
    default void scatter(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            DataType type,
            int root,
            Stream stream) {
        call(OpKind.SCATTER, send, sendOffset, recv, recvOffset, recvCount, type, null, root, stream);
    }

    /** A scatter from the start of both buffers. */
    default void scatter(DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, int root, Stream stream) {
        scatter(send, 0, recv, 0, recvCount, type, root, stream);
    }

    /**
     * Why this communicator issues ops of {@code kind} as a group of sends and receives instead of the library's own
     * function (the library lacks it, or a setting asks so); empty where it calls the function, and on sim.
     */
    default Optional<String> sendRecvForm(OpKind kind) {
        return Optional.empty();
    }

    /**
     * The op of {@code kind}: what each method above does, and what a backend implements once for every op.
     * {@code op} is read where the op reduces, {@code rootOrPeer} where it has a root or a peer; a send passes its
     * buffer as {@code send}, a receive as {@code recv}; a side the op does not use is neither checked nor touched.
     * Code that chooses ops from the catalogue (benchmarks, tests) calls it too.
     */
    void call(
            OpKind kind,
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int rootOrPeer,
            Stream stream);

    /**
     * {@code ncclSend}/{@code mcclSend} of {@code count} elements from {@code buffer + offset} (in elements) to rank
     * {@code peer}; pair it with the peer's recv inside a group.
     */
    default void send(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        call(OpKind.SEND, buffer, offset, null, 0, count, type, null, peer, stream);
    }

    /** A send from the start of the buffer. */
    default void send(DeviceBuffer buffer, long count, DataType type, int peer, Stream stream) {
        send(buffer, 0, count, type, peer, stream);
    }

    /**
     * {@code ncclRecv}/{@code mcclRecv} of {@code count} elements into {@code buffer + offset} (in elements) from rank
     * {@code peer}.
     */
    default void recv(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        call(OpKind.RECV, null, 0, buffer, offset, count, type, null, peer, stream);
    }

    /** A recv into the start of the buffer. */
    default void recv(DeviceBuffer buffer, long count, DataType type, int peer, Stream stream) {
        recv(buffer, 0, count, type, peer, stream);
    }

    /**
     * {@code ncclGroupStart}/{@code mcclGroupStart}: ops until {@link #groupEnd()} are issued as one (send/recv pairs
     * need it).
     */
    void groupStart();

    /** {@code ncclGroupEnd}/{@code mcclGroupEnd}: issues the ops since {@link #groupStart()}. */
    void groupEnd();

    // ---- memory and streams owned elsewhere ---------------------------------------------------------------

    /**
     * {@code bytes} of device memory at {@code address} that a framework owns, as {@code bytes / type.size()}
     * elements of {@code type}. The backend asks the driver what the memory is (its allocation's head, for R2;
     * VMM with which handle types, or legacy memory, for R3, R9 and R11) and refuses host, pinned-host and managed
     * memory, memory of another device, and a range that runs past its allocation. The buffer's {@code close()}
     * frees nothing: the memory must outlive every pipeline and graph that uses it.
     */
    DeviceBuffer wrap(long address, long bytes, DataType type);

    /**
     * A stream created elsewhere on this rank's device, from its native handle; its {@code close()} destroys
     * nothing. Pipelines bind to it and capture on it like on their own streams.
     */
    Stream wrapStream(long handle);

    // ---- streams and lifetime ----------------------------------------------------------------------------

    /** A new stream on this rank's device. */
    Stream createStream();

    // ---- what the ranks did ---------------------------------------------------------------------------------

    /**
     * What this communicator's flight recorder holds now: the last operations this rank issued on it (2000 unless
     * {@code collectives.flightRecorder.entries} or {@code COLLECTIVES_FLIGHT_RECORDER_ENTRIES} says otherwise; 0
     * turns it off), each with the pipeline and step that issued it, its buffers, count and type, and whether it
     * completed. Ranks that issue the same operations number them alike.
     */
    FlightRecord flightRecord();

    /**
     * Whether the library connected this communicator's peers when it was made, so that a graph may capture its first
     * collectives. Where it connects them lazily, at the first collective that needs them (NCCL's default, whose
     * connection cannot be captured), a GRAPH step's first call with each argument tuple runs its ops eagerly, and its
     * second captures them; no op runs that the step did not call.
     */
    boolean peersConnectedAtInit();

    // ---- child communicators ------------------------------------------------------------------------------

    /**
     * {@code ncclCommSplit} / {@code mcclCommSplit}, collective over this communicator: every rank calls it, and the
     * ranks that pass the same {@code color} (0 or more) form one child, ranked by {@code key}, then by their rank
     * here. A rank that passes {@link #NO_COLOR} takes part but joins no child, and gets an empty result.
     *
     * <p>A rank that never calls it: on {@code sim} the others fail within the communicator's timeout, naming it;
     * on {@code nccl} and {@code mccl} they wait inside the library's call (it has no timeout) until this
     * communicator is aborted, e.g. by a watchdog thread calling {@link #abort()}.
     *
     * @return this rank's child, which the caller closes (closing this communicator closes it too)
     */
    Optional<Communicator> split(int color, int key);

    /**
     * {@code ncclCommShrink} / {@code mcclCommShrink}: a child of every rank but {@code excludedRanks}, ranked as
     * here with the gaps closed. Every other rank calls it with the same ranks; the excluded ones do not call it
     * and are not waited for, so it also serves after they failed or died. On {@code sim} it works on an aborted
     * communicator too. On {@code nccl} and {@code mccl}, a communicator still open is revoked first where the
     * library has {@code ncclCommRevoke} (it then only closes) and shrunk by {@code ncclCommShrink} (NCCL 2.27 or
     * later), with {@code NCCL_SHRINK_ABORT} when it has an asynchronous error; one aborted after a peer's death, which
     * the library does not shrink, is replaced by a communicator the survivors form anew through the job's
     * {@code tcp://} rendezvous, and the excluded ranks must then be those that died. The child's {@code toString()}
     * says which path made it. The JFR event {@code dev.collectives.Recovery} records the recovery when it ends: at
     * the first pipeline bound on the child, at the child's close, or at the shrink's failure.
     *
     * @return this rank's child, which the caller closes (closing this communicator closes it too)
     */
    Communicator shrink(int... excludedRanks);

    /**
     * After ranks of a job of processes died: a new communicator of this one's size, in which the survivors keep
     * their ranks and a process started in the place of each rank that died (with that rank and
     * {@code COLLECTIVES_REPLACEMENT=1}, which its {@code join} meets the survivors through) takes its rank. Every
     * survivor calls it once its calls failed naming the death; it waits up to {@code timeout} for a replacement of
     * every rank that died, then forms the communicator through the job's {@code tcp://} rendezvous (on {@code nccl}
     * and {@code mccl} from a new unique id of rank 0, with {@code CommInitRank(Config)} and the config this one was
     * joined with). The new communicator takes the job over: a later death is reported on it, and it may be
     * reformed again. Close this one too (before or after it); pipelines are bound again on the new one. Fails on
     * every rank, naming the ranks not replaced, when {@code timeout} passes first; on a communicator whose job
     * cannot admit a replacement (threads of one process, a child of {@code split} or {@code shrink}, a {@code file:}
     * rendezvous) or whose ranks are all alive, it fails saying why. The JFR event {@code dev.collectives.Recovery}
     * records the recovery when it ends, as for {@link #shrink}.
     *
     * @return this rank's communicator among the survivors and the replacements, which the caller closes
     */
    default Communicator reform(Duration timeout) {
        throw CollectivesException.usage(
                rank(), "reform: " + this + " cannot admit a replacement for a rank that died");
    }

    /**
     * Grows a job of processes by {@code added} ranks: processes started with {@code COLLECTIVES_JOINING=1} (and the
     * job's rendezvous and token; no rank or world size), which meet the ranks through the job's {@code tcp://}
     * rendezvous, take the ranks after this communicator's, and every rank gets a new communicator of the larger
     * size, in which it keeps its rank. Every rank calls it with the same {@code added}, with no work in flight; it
     * waits up to {@code timeout} for the processes that join. On {@code nccl} and {@code mccl} the new communicator
     * is formed through the job's rendezvous from a new unique id of rank 0 (with {@code CommInitRank(Config)} and
     * the config this one was joined with), or by {@code ncclCommGrow} where the library has it. The new
     * communicator takes the job over (a later death is reported on it; it may grow, shrink or be reformed again);
     * close this one too, and bind pipelines again on the new one. Fails on every rank, saying why, where the ranks
     * ask for different numbers, fewer processes came within {@code timeout} (naming how many came), or one of them
     * died first: this communicator then goes on at its size. Refused on a communicator with a dead rank, one of
     * threads of one process, a child of {@code split} or {@code shrink}, or a job without a {@code tcp://}
     * rendezvous. The JFR event {@code dev.collectives.Recovery} records it (kind {@code grow}) when it ends, as for
     * {@link #shrink}.
     *
     * @return this rank's communicator of the grown job, which the caller closes
     */
    default Communicator grow(int added, Duration timeout) {
        throw CollectivesException.usage(
                rank(),
                "grow: " + this + " cannot take in processes that join: only the communicator of a job of"
                        + " processes joined through a tcp:// rendezvous can");
    }

    /**
     * {@code ncclCommAbort}/{@code mcclCommAbort}: stops pending work; other ranks' calls with this communicator fail.
     */
    void abort();

    /**
     * {@code ncclCommFinalize} + {@code ncclCommDestroy} ({@code mcclCommFinalize} + {@code mcclCommDestroy});
     * idempotent. Children made by {@link #split} or
     * {@link #shrink} and still open are closed first, newest first (as a parent must outlive its children); this
     * communicator closes even if one of them fails to, and that failure is thrown, the others suppressed.
     */
    @Override
    void close();
}
