package dev.collectives.backend.device;

import org.bytedeco.javacpp.LongPointer;

/**
 * Every call this backend makes into the native shim ({@code collectives_device.h}): one method per {@code cx_*}
 * function, with the same arguments, so that the backend's logic, its failure paths above all, runs against a
 * scripted library in tests as it runs against the real one. Each function takes the library table ({@code lib},
 * from {@link #newTable()}) and primitive handles; outputs go through small arrays that callers allocate once.
 * Results are the vendor library's codes (0 = success). {@link NativeShimApi} is the real one; use it through
 * {@link NativeLibrary}, which checks the codes.
 */
interface NativeApi {
    /** Loads the native binding; throws (UnsatisfiedLinkError) where this platform has no build of it. */
    void load();

    // ---- symbol table -----------------------------------------------------------------------------------------
    int slotCount();

    int slotLibrary(int slot);

    String slotName(int slot);

    int slotRequired(int slot);

    long newTable();
    /** null on success, else why dlopen failed. */
    String open(long lib, int library, String path);

    int bind(long lib, int slot, String symbol);

    int has(long lib, int slot);

    void setenvDefault(String name, String value);

    void discard(long lib);

    // ---- errors -----------------------------------------------------------------------------------------------
    String cclErrorString(long lib, int code);

    String cclLastError(long lib, long comm);

    String runtimeErrorString(long lib, int code);

    String driverErrorString(long lib, int code);

    // ---- communicators ----------------------------------------------------------------------------------------
    int getVersion(long lib, int[] version);

    int getUniqueId(long lib, byte[] id);

    int commInitRank(
            long lib,
            LongPointer comm,
            int nranks,
            byte[] id,
            int rank,
            int layoutVersion,
            int blocking,
            int collnetEnable,
            int ctaPolicy,
            int minCtas,
            int maxCtas);

    int commInitAll(long lib, long[] comms, int ndev, int[] devices);
    /** out: native memory kept until the split completes (GroupEnd, or later when non-blocking): the library fills it then. */
    int commSplit(long lib, long comm, int color, int key, LongPointer out);
    /** out: native memory that stays valid until the shrink completes, which is when the library fills it. */
    int commShrink(long lib, long comm, int[] excluded, int count, LongPointer out, int flags);

    int commRevoke(long lib, long comm, int flags);

    /** {@code CommGetUniqueId}: on rank 0 of {@code comm}, the id of its next grow. */
    int commGetUniqueId(long lib, long comm, byte[] id);

    /**
     * {@code CommGrow}: {@code comm}'s ranks (only its rank 0 with the id: {@code hasId}) and the new ranks
     * ({@code comm} 0, each with its {@code rank}) form a communicator of {@code nranks}; {@code out} is copied back
     * when the call returns.
     */
    int commGrow(long lib, long comm, int nranks, byte[] id, int hasId, int rank, LongPointer out);

    int commFinalize(long lib, long comm);

    int commDestroy(long lib, long comm);

    int commAbort(long lib, long comm);

    int commAsyncError(long lib, long comm, int[] error);

    int commCount(long lib, long comm, int[] out);

    int commDevice(long lib, long comm, int[] out);

    int commUserRank(long lib, long comm, int[] out);

    // ---- collectives and point to point (hot: primitives only) ----------------------------------------------
    /**
     * Every op, by its number {@code kind} ({@link dev.collectives.annotation.OpKind#ordinal()}): the library's
     * function of that op with the arguments it takes; a send reads only {@code send}, a receive writes only
     * {@code recv}, {@code op} is read where the op reduces and {@code peer} (root or peer) where it has one.
     */
    int collective(
            long lib, int kind, long send, long recv, long count, int type, int op, int peer, long comm, long stream);

    int groupStart(long lib);

    int groupEnd(long lib);

    // ---- memory and registration ------------------------------------------------------------------------------
    int setDevice(long lib, int device);

    int deviceAttribute(long lib, int device, int attribute, int[] out);

    int deviceCount(long lib, int[] out);

    int memGetInfo(long lib, int device, long[] freeAndTotal);

    int memAlloc(long lib, int device, long bytes, long[] out);

    int memFree(long lib, int device, long address);

    int runtimeMalloc(long lib, int device, long bytes, long[] out);

    int runtimeFree(long lib, int device, long address);

    int memcpy(long lib, int device, long dst, long src, long bytes);

    int commRegister(long lib, long comm, long address, long bytes, long[] handle);

    int commDeregister(long lib, long comm, long handle);

    int windowRegister(long lib, long comm, long address, long bytes, int flags, LongPointer window);

    int windowDeregister(long lib, long comm, long window);

    int winGetUserPtr(long lib, long comm, long window, long[] out);

    int getLsaDevicePointer(long lib, long window, long offset, int lsaRank, long[] out);

    // ---- VMM --------------------------------------------------------------------------------------------------
    int driverInit(long lib);

    int vmmGranularity(long lib, int device, int handleTypes, long[] out);

    int vmmFabricSupported(long lib, int device);
    /** out: address, allocation handle, the driver's code; returns 0 or -1 create, -2 reserve, -3 map, -4 access. */
    int vmmMap(long lib, int device, long physical, long reserved, long alignment, int handleTypes, long[] out);

    int vmmUnmap(long lib, int device, long address, long physical, long reserved, long handle);

    // ---- streams, events, graphs ------------------------------------------------------------------------------
    int streamCreate(long lib, int device, long[] out);

    int streamDestroy(long lib, long stream);

    int streamSynchronize(long lib, long stream);

    int streamQuery(long lib, long stream);

    int streamBeginCapture(long lib, long stream, int mode);

    int streamEndCapture(long lib, long stream, long[] graph);

    int streamIsCapturing(long lib, long stream, int[] status);

    int graphInstantiate(long lib, long graph, long[] exec);

    int graphLaunch(long lib, long exec, long stream);

    int graphExecDestroy(long lib, long exec);

    int graphDestroy(long lib, long graph);
    /** flags: 0 timing, 2 without timing. */
    int eventCreate(long lib, int device, int flags, long[] out);

    int eventRecord(long lib, long event, long stream);

    int eventSynchronize(long lib, long event);

    int eventElapsedMs(long lib, long start, long end, float[] ms);

    int eventDestroy(long lib, long event);
    /** 0 done, {@link NativeLibrary#NOT_READY} pending, else an error. */
    int eventQuery(long lib, long event);

    int streamWaitEvent(long lib, long stream, long event);

    // ---- memory owned elsewhere -------------------------------------------------------------------------------
    /** out (7): residence, device, head, size, vmm, handle types, failing step; see collectives_device.h. */
    int classify(long lib, int device, long address, long[] out);

    int runtimeMallocHost(long lib, int device, long bytes, long[] out);

    int runtimeFreeHost(long lib, long address);
    /** out: the device's address of pinned host memory at {@code host}. */
    int runtimeHostDevicePointer(long lib, int device, long host, long[] out);

    int runtimeMallocManaged(long lib, int device, long bytes, long[] out);

    // ---- the benchmarks' native loop ------------------------------------------------------------------------
    /** {@code iters} enqueues of one op in a C loop; kind: an op's number as {@link #collective} takes it, or -1 for a graph launch ({@code send}: the graph exec). */
    int benchEnqueue(
            long lib,
            int kind,
            long send,
            long recv,
            long count,
            int type,
            int op,
            int root,
            long comm,
            long stream,
            int iters);
}
