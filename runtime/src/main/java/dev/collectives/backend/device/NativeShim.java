package dev.collectives.backend.device;

import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.annotation.Name;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * The JNI binding of {@code collectives_device.h}, built by the JavaCPP plugin. Every function takes the
 * library table ({@code lib}, from {@link #newTable()}) and primitive handles; outputs go through small arrays
 * that callers allocate once. Results are the vendor library's codes (0 = success). The backend reaches it only
 * through {@link NativeApi} ({@link NativeShimApi}), and {@link NativeLibrary} checks the codes.
 */
@Platform(include = "collectives_device.h", link = "dl")
final class NativeShim {
    static {
        Loader.load();
    }

    private NativeShim() {}

    /** Loads the JNI library; throws (UnsatisfiedLinkError) when this platform has no build of it. */
    static void load() {
        // the static initializer did the work
    }

    // ---- symbol table -----------------------------------------------------------------------------------------
    @Name("cx_slot_count")
    static native int slotCount();

    @Name("cx_slot_library")
    static native int slotLibrary(int slot);

    @Name("cx_slot_name")
    static native String slotName(int slot);

    @Name("cx_slot_required")
    static native int slotRequired(int slot);

    @Name("cx_new")
    static native long newTable();
    /** null on success, else why dlopen failed. */
    @Name("cx_open")
    static native String open(long lib, int library, String path);

    @Name("cx_bind")
    static native int bind(long lib, int slot, String symbol);

    @Name("cx_has")
    static native int has(long lib, int slot);

    @Name("cx_setenv_default")
    static native void setenvDefault(String name, String value);

    @Name("cx_discard")
    static native void discard(long lib);

    // ---- errors -----------------------------------------------------------------------------------------------
    @Name("cx_ccl_error_string")
    static native String cclErrorString(long lib, int code);

    @Name("cx_ccl_last_error")
    static native String cclLastError(long lib, long comm);

    @Name("cx_rt_error_string")
    static native String runtimeErrorString(long lib, int code);

    @Name("cx_drv_error_string")
    static native String driverErrorString(long lib, int code);

    // ---- communicators ----------------------------------------------------------------------------------------
    @Name("cx_get_version")
    static native int getVersion(long lib, int[] version);

    @Name("cx_get_unique_id")
    static native int getUniqueId(long lib, byte[] id);

    @Name("cx_comm_init_rank")
    static native int commInitRank(
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

    @Name("cx_comm_init_all")
    static native int commInitAll(long lib, long[] comms, int ndev, int[] devices);
    /** out: native memory kept until the split completes (GroupEnd, or later when non-blocking): the library fills it then. */
    @Name("cx_comm_split")
    static native int commSplit(long lib, long comm, int color, int key, LongPointer out);
    /** out: native memory that stays valid until the shrink completes, which is when the library fills it. */
    @Name("cx_comm_shrink")
    static native int commShrink(long lib, long comm, int[] excluded, int count, LongPointer out, int flags);

    @Name("cx_comm_revoke")
    static native int commRevoke(long lib, long comm, int flags);

    @Name("cx_comm_get_unique_id")
    static native int commGetUniqueId(long lib, long comm, byte[] id);

    /** {@code out} is copied back when the call returns. */
    @Name("cx_comm_grow")
    static native int commGrow(long lib, long comm, int nranks, byte[] id, int hasId, int rank, LongPointer out);

    @Name("cx_comm_finalize")
    static native int commFinalize(long lib, long comm);

    @Name("cx_comm_destroy")
    static native int commDestroy(long lib, long comm);

    @Name("cx_comm_abort")
    static native int commAbort(long lib, long comm);

    @Name("cx_comm_async_error")
    static native int commAsyncError(long lib, long comm, int[] error);

    @Name("cx_comm_count")
    static native int commCount(long lib, long comm, int[] out);

    @Name("cx_comm_device")
    static native int commDevice(long lib, long comm, int[] out);

    @Name("cx_comm_user_rank")
    static native int commUserRank(long lib, long comm, int[] out);

    // ---- collectives and point to point (hot: primitives only) ----------------------------------------------
    /**
     * The op numbered {@code kind} (its place in {@code OpKind}): its library function with the arguments it takes; a
     * send reads only {@code send}, a receive writes only {@code recv}.
     */
    @Name("cx_collective")
    static native int collective(
            long lib, int kind, long send, long recv, long count, int type, int op, int peer, long comm, long stream);

    @Name("cx_group_start")
    static native int groupStart(long lib);

    @Name("cx_group_end")
    static native int groupEnd(long lib);

    // ---- memory and registration ------------------------------------------------------------------------------
    @Name("cx_set_device")
    static native int setDevice(long lib, int device);

    @Name("cx_device_attribute")
    static native int deviceAttribute(long lib, int device, int attribute, int[] out);

    @Name("cx_device_count")
    static native int deviceCount(long lib, int[] out);

    @Name("cx_mem_get_info")
    static native int memGetInfo(long lib, int device, long[] freeAndTotal);

    @Name("cx_mem_alloc")
    static native int memAlloc(long lib, int device, long bytes, long[] out);

    @Name("cx_mem_free")
    static native int memFree(long lib, int device, long address);

    @Name("cx_rt_malloc")
    static native int runtimeMalloc(long lib, int device, long bytes, long[] out);

    @Name("cx_rt_free")
    static native int runtimeFree(long lib, int device, long address);

    @Name("cx_memcpy")
    static native int memcpy(long lib, int device, long dst, long src, long bytes);

    @Name("cx_comm_register")
    static native int commRegister(long lib, long comm, long address, long bytes, long[] handle);

    @Name("cx_comm_deregister")
    static native int commDeregister(long lib, long comm, long handle);

    @Name("cx_window_register")
    static native int windowRegister(long lib, long comm, long address, long bytes, int flags, LongPointer window);

    @Name("cx_window_deregister")
    static native int windowDeregister(long lib, long comm, long window);

    @Name("cx_win_get_user_ptr")
    static native int winGetUserPtr(long lib, long comm, long window, long[] out);

    @Name("cx_get_lsa_device_pointer")
    static native int getLsaDevicePointer(long lib, long window, long offset, int lsaRank, long[] out);

    // ---- VMM --------------------------------------------------------------------------------------------------
    @Name("cx_driver_init")
    static native int driverInit(long lib);

    @Name("cx_vmm_granularity")
    static native int vmmGranularity(long lib, int device, int handleTypes, long[] out);

    @Name("cx_vmm_fabric_supported")
    static native int vmmFabricSupported(long lib, int device);
    /** out: address, allocation handle, the driver's code; returns 0 or -1 create, -2 reserve, -3 map, -4 access. */
    @Name("cx_vmm_map")
    static native int vmmMap(
            long lib, int device, long physical, long reserved, long alignment, int handleTypes, long[] out);

    @Name("cx_vmm_unmap")
    static native int vmmUnmap(long lib, int device, long address, long physical, long reserved, long handle);

    // ---- streams, events, graphs ------------------------------------------------------------------------------
    @Name("cx_stream_create")
    static native int streamCreate(long lib, int device, long[] out);

    @Name("cx_stream_destroy")
    static native int streamDestroy(long lib, long stream);

    @Name("cx_stream_synchronize")
    static native int streamSynchronize(long lib, long stream);

    @Name("cx_stream_query")
    static native int streamQuery(long lib, long stream);

    @Name("cx_stream_begin_capture")
    static native int streamBeginCapture(long lib, long stream, int mode);

    @Name("cx_stream_end_capture")
    static native int streamEndCapture(long lib, long stream, long[] graph);

    @Name("cx_stream_is_capturing")
    static native int streamIsCapturing(long lib, long stream, int[] status);

    @Name("cx_graph_instantiate")
    static native int graphInstantiate(long lib, long graph, long[] exec);

    @Name("cx_graph_launch")
    static native int graphLaunch(long lib, long exec, long stream);

    @Name("cx_graph_exec_destroy")
    static native int graphExecDestroy(long lib, long exec);

    @Name("cx_graph_destroy")
    static native int graphDestroy(long lib, long graph);
    /** flags: 0 timing, 2 without timing. */
    @Name("cx_event_create")
    static native int eventCreate(long lib, int device, int flags, long[] out);

    @Name("cx_event_record")
    static native int eventRecord(long lib, long event, long stream);

    @Name("cx_event_synchronize")
    static native int eventSynchronize(long lib, long event);

    @Name("cx_event_elapsed_ms")
    static native int eventElapsedMs(long lib, long start, long end, float[] ms);

    @Name("cx_event_destroy")
    static native int eventDestroy(long lib, long event);
    /** 0 done, {@link NativeLibrary#NOT_READY} pending, else an error. */
    @Name("cx_event_query")
    static native int eventQuery(long lib, long event);

    @Name("cx_stream_wait_event")
    static native int streamWaitEvent(long lib, long stream, long event);

    // ---- memory owned elsewhere -------------------------------------------------------------------------------
    /** out (7): residence, device, head, size, vmm, handle types, failing step; see collectives_device.h. */
    @Name("cx_classify")
    static native int classify(long lib, int device, long address, long[] out);

    @Name("cx_rt_malloc_host")
    static native int runtimeMallocHost(long lib, int device, long bytes, long[] out);

    @Name("cx_rt_free_host")
    static native int runtimeFreeHost(long lib, long address);
    /** out: the device's address of pinned host memory at {@code host}. */
    @Name("cx_rt_host_device_pointer")
    static native int runtimeHostDevicePointer(long lib, int device, long host, long[] out);

    @Name("cx_rt_malloc_managed")
    static native int runtimeMallocManaged(long lib, int device, long bytes, long[] out);

    // ---- the benchmarks' native loop ------------------------------------------------------------------------
    /** {@code iters} enqueues of one op in a C loop; kind: an op's number, or {@code CX_BENCH_GRAPH_LAUNCH} ({@link NativeLoop}). */
    @Name("cx_bench_enqueue")
    static native int benchEnqueue(
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
