package dev.collectives.rules;

/**
 * The registration rules: R1 to R12 from the NCCL/MCCL user-buffer-registration guide (the two libraries' rules are the
 * same), R13 and R14 the project's own. Every compile-time diagnostic and run-time {@code CollectivesException} about a
 * rule starts with its {@link #tag()}, such as {@code [R7 ARENA]}, and ends with a pointer to its section of the rules
 * page, {@link #anchor()}. Each constant's Javadoc holds the rule and where it is checked (<em>compile</em>: the
 * annotation processor rejects the interface; <em>bind</em>: the generated {@code bind(...)} or the runtime throws;
 * <em>call</em>: each step call); the rules page adds examples of each violation and its fix.
 */
public enum Rule {
    /**
     * If one rank passes registered buffers to a collective, every rank must; and within one rank, an op's send and
     * recv buffer are both registered or both not. The library's behaviour with a mix is undefined.
     *
     * <p><em>Compile</em>: in a {@code LOCAL} pipeline an op may not combine a registered buffer with one declared
     * {@code registered = false} (views take their block's registration); in a {@code GRAPH} pipeline no op may use a
     * {@code registered = false} buffer at all, because graph capture registers whatever the captured ops touch.
     * <em>Bind</em>: each buffer's registration is part of the pipeline's fingerprint, so ranks that disagree fail with
     * {@code [R1 MIXED]}.
     */
    R1_MIXED("R1", "MIXED"),
    /**
     * The offset of a buffer from the head of its allocation is the same on every rank, for graph registration and for
     * local MTLink SHARP registration. Elsewhere ({@code NONE}, and {@code LOCAL} registration on a communicator
     * without MTLink SHARP, where general registration serves the ops) ranks may pass buffers at any offset.
     *
     * <p><em>Compile</em>: offsets written in annotations are constants, so they agree by construction. <em>Bind</em>:
     * where R2 applies (a {@code GRAPH} pipeline, or a {@code LOCAL} one on a communicator that has MTLink SHARP, which
     * the library then uses by itself), the head offset of every registered {@code @External} buffer (which only run
     * time knows) goes into the pipeline's fingerprint; ranks that pass slices at different offsets fail on every rank
     * with {@code [R2 OFFSET]}, naming each rank's offset. The message says the ranks passed buffers at different
     * offsets, not that they bound different pipelines: the pipeline is the same. <em>Call</em> (sim): each registered
     * op compares head offsets across ranks under graph and MTLink SHARP registration, which also catches hand-written
     * code.
     */
    R2_OFFSET("R2", "OFFSET"),
    /**
     * MTLink SHARP (NVLink SHARP on NVIDIA) registration needs memory from {@code ncclMemAlloc}/{@code mcclMemAlloc}
     * or from a qualified allocator (R11). Legacy {@code cudaMalloc}/{@code musaMalloc} memory does not qualify.
     *
     * <p><em>Compile</em>: in a registering pipeline with {@code acceleration = Acceleration.MTLINK_SHARP}, a
     * registered {@code @Buffer} may not use {@code Allocator.LEGACY}, nor a custom allocator without
     * {@code @QualifiedAllocator}. <em>Bind</em>: an {@code @External} buffer must be VMM memory.
     */
    R3_MTLS_ALLOC("R3", "MTLS-ALLOC"),
    /**
     * Graph registration only happens when the ops are launched on a stream under graph capture on every rank, in
     * thread-local capture mode, and the graph is then instantiated and launched.
     *
     * <p><em>Bind</em>: a {@code GRAPH} pipeline's {@code bind} captures each step method into its own graph
     * ({@code stream.beginCapture()} … {@code stream.endCapture()}, then {@code instantiate()}); a step call is one
     * graph launch. If a capture fails halfway, bind ends it and destroys the partial graph. You cannot get this wrong
     * from the DSL; the sim backend reports hand-written code that does (e.g. capture on some ranks only).
     */
    R4_GRAPH_CAPTURE("R4", "GRAPH-CAPTURE"),
    /**
     * Graph-registered buffers stay registered until the graph is destroyed. Destroy the graph before freeing its
     * buffers, and never replay a graph whose buffers were freed.
     *
     * <p><em>Call</em>: the generated {@code close()} destroys graph executables and graphs first, then frees memory; a
     * step called after {@code close()} throws {@code [R5 GRAPH-LIFETIME]} naming the pipeline instead of replaying
     * freed memory.
     */
    R5_GRAPH_LIFETIME("R5", "GRAPH-LIFETIME"),
    /**
     * Local registration: {@code ncclCommRegister}/{@code mcclCommRegister} on every rank before the first
     * collective, {@code ncclCommDeregister}/{@code mcclCommDeregister} explicitly at the end; register once and
     * reuse.
     *
     * <p><em>Bind/close</em>: a {@code LOCAL} pipeline registers each root allocation once at bind (one handle per
     * {@code @Buffer} and {@code @External}, never per view) and deregisters in {@code close()}, before the memory is
     * freed.
     */
    R6_LOCAL("R6", "LOCAL"),
    /**
     * One large block may be allocated and registered once, with send and recv buffers taken from it at offsets, as
     * long as R2 holds. Views lie inside their block; an op's send and recv either coincide (in place) or do not
     * overlap.
     *
     * <p><em>Compile</em>: a {@code @View} lies inside the {@code @Buffer} or {@code @View} it is {@code of} (a view
     * of an {@code @External} is held to the external's declared size, under R13), at an {@code offsetBytes} aligned
     * to its element size; every op stays inside its buffers — {@code @AllGather} reaches {@code sendCount × ranks}
     * into recv, {@code @ReduceScatter} {@code recvCount × ranks} into send, {@code @AllToAll} {@code count × ranks}
     * into both (checked fully when {@code ranks} is declared, else for one rank); send and recv ranges start at the
     * same byte (in place, for {@code @AllReduce}, {@code @Broadcast}, {@code @Reduce}) or do not overlap
     * ({@code @AllGather}, {@code @ReduceScatter}, {@code @AllToAll} cannot run in place at the same offsets on every
     * rank: in place, allgather's send sits at {@code recv + rank × sendCount}, which R2 forbids). <em>Bind</em>: where
     * the size depends on the communicator's size, the generated code checks it before the first op.
     */
    R7_ARENA("R7", "ARENA"),
    /**
     * IB SHARP registration works only for communicators with exactly one rank per node; it serves allreduce,
     * reducescatter and allgather; any allocator (also {@code cudaMalloc}/{@code musaMalloc}) will do; it cuts the
     * library's SM use to 1.
     *
     * <p><em>Compile</em> (warning): an op other than {@code @AllReduce}, {@code @ReduceScatter}, {@code @AllGather} in
     * a pipeline with {@code acceleration = Acceleration.IB_SHARP} takes the general path. <em>Bind</em>: a registering
     * IB SHARP pipeline needs {@code comm.topology().ranksPerNode() == 1}.
     */
    R8_IB_SHARP("R8", "IB-SHARP"),
    /**
     * General (intra-node) registration serves collectives and send/recv. Legacy {@code cudaMalloc}/{@code musaMalloc}
     * memory may be registered only when {@code NCCL_LEGACY_CUDA_REGISTER=1}/{@code MCCL_LEGACY_MUSA_REGISTER=1},
     * because it can hang or crash on abort.
     *
     * <p><em>Compile</em>: a registered {@code Allocator.LEGACY} buffer in a {@code GRAPH} or {@code LOCAL} pipeline
     * needs {@code allowLegacyRegistration = true} — unless IB SHARP is what it is registered for (the pipeline asks
     * for IB SHARP and only IB-SHARP ops use it). <em>Bind</em>: such buffers, and {@code @External} buffers that turn
     * out to be legacy memory, need the variable set to {@code 1} in the environment the library sees — except on a
     * communicator with IB SHARP enabled and exactly 1 rank per node, where IB SHARP registers memory of any allocator
     * (R8). The run-time check is {@code dev.collectives.runtime.internal.LegacyRegistrationRule}, used by both
     * backends' {@code register} and by generated code.
     */
    R9_LEGACY("R9", "LEGACY"),
    /**
     * {@code ncclWinGetUserPtr}/{@code mcclWinGetUserPtr} returns the pointer a window was registered on; {@code
     * ncclGetLsaDevicePointer}/{@code mcclGetLsaDevicePointer} the window's device address as another rank of the local
     * team sees it. Both need symmetric-window support; without it a probe may return success and a NULL pointer.
     *
     * <p><em>Bind/call</em>: the runtime probes the helpers as a capability; {@code RegisteredWindow.userPointer()} and
     * {@code RegisteredWindow.lsaDevicePointer(...)} are empty where they are missing, and the generated {@code
     * describe()} says for each {@code @Window} whether the helpers are available. The generated class offers {@code
     * <name>Window()} for each window.
     */
    R10_WINDOW_HELPERS("R10", "WINDOW-HELPERS"),
    /**
     * A qualified custom allocator exports the POSIX file descriptor handle type, and FABRIC too on GPUs that support
     * it; its physical size is a multiple of the recommended granularity; its virtual head is aligned to that
     * granularity and its reservation a multiple of it. The same holds for VMM buffers used for general registration.
     *
     * <p><em>Compile</em>: {@code allocator = Allocator.CUSTOM} needs {@code customAllocator = X.class}, where
     * {@code X} is a concrete, instantiable {@code DeviceAllocator} annotated
     * {@code @QualifiedAllocator(handleTypes = {POSIX_FILE_DESCRIPTOR, ...})}, with {@code FABRIC} as well under MTLink
     * SHARP; {@code customAllocator} without {@code CUSTOM} is an error. <em>Bind</em>: every allocation's sizes and
     * alignment are checked against the device's granularity.
     */
    R11_ALLOCATOR("R11", "ALLOCATOR"),
    /**
     * Window registration is collective (every rank calls it), needs VMM or {@code ncclMemAlloc}/{@code mcclMemAlloc}
     * memory and a head aligned to 4096 bytes, and symmetric windows need the same offset on every rank.
     *
     * <p><em>Compile</em>: {@code @Window} on {@code Allocator.LEGACY} memory, or on memory declared
     * {@code registered = false}, is an error; a window on a {@code @View} must start at a multiple of 4096 bytes in
     * its allocation. <em>Bind</em>: every rank registers the window in
     * {@code bind}; the runtime checks memory and alignment, and the window's kind is part of the fingerprint.
     */
    R12_WINDOW("R12", "WINDOW"),
    /**
     * An op's element type matches its buffers; counts are positive; byte sizes do not overflow; the reduce op suits
     * the type ({@code AVG} only on floating-point types).
     *
     * <p><em>Compile</em>: the send and recv accessors of an op have the same {@code DataType} (declare a typed
     * {@code @View} to reinterpret bytes); counts of buffers, views and ops are positive; a {@code @View} of an
     * {@code @External} stays within the external's declared count and type; {@code count × element size}
     * (and offsets plus extents) fit in a {@code long}; {@code ReduceOp.AVG} is refused on integer types.
     * <em>Bind</em>: an {@code @External} buffer must have its declared type and at least its declared count, checked
     * before anything is allocated or laid out in it.
     * <em>Call</em>: a typed host copy carries the element type of its Java array ({@code float[]}: {@code FLOAT32};
     * {@code double[]}: {@code FLOAT64}; {@code int[]}: {@code INT32}/{@code UINT32}; {@code long[]}:
     * {@code INT64}/{@code UINT64}; {@code short[]}, {@code char[]}: {@code FLOAT16}/{@code BFLOAT16} bit patterns), so
     * {@code copyFromHost(float[])} into an {@code INT32} buffer is refused; raw bytes of any type go through the
     * {@code byte[]} and {@code ByteBuffer} overloads.
     */
    R13_TYPES("R13", "TYPES"),
    /**
     * All ranks bind the same pipeline: the same ops in the same order, with the same counts, types, offsets and
     * registration mode. A difference hangs the library; Collectives reports it on every rank.
     *
     * <p><em>Bind</em>: the generated {@code bind} builds a fingerprint of the pipeline (its name, registration,
     * accelerations, declared ranks, every buffer, view, external, window and op) and exchanges it over the
     * communicator; if any rank differs, every rank throws the same exception naming the first difference and each
     * rank's value. A declared {@code ranks = n} must equal the communicator's size.
     */
    R14_SHAPE("R14", "SHAPE");

    /**
     * The alignment of a window's head, in bytes (R12): what {@code {nccl,mccl}CommWindowRegister} requires, and
     * what a {@code @Window} on a view must start at a multiple of in its allocation.
     */
    public static final long WINDOW_ALIGNMENT = 4096;

    private final String id;
    private final String shortName;

    Rule(String id, String shortName) {
        this.id = id;
        this.shortName = shortName;
    }

    /** "R7" */
    public String id() {
        return id;
    }

    /** "ARENA" */
    public String shortName() {
        return shortName;
    }

    /** "[R7 ARENA]": the prefix of every message about this rule. */
    public String tag() {
        return "[" + id + " " + shortName + "]";
    }

    /** The section of docs/rules.md, e.g. "docs/rules.md#r7-arena". */
    public String anchor() {
        return "docs/rules.md#" + (id + "-" + shortName).toLowerCase(java.util.Locale.ROOT);
    }
}
