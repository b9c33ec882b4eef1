package dev.collectives.backend.device;

import org.bytedeco.javacpp.LongPointer;

/** The native library itself: each call goes to the JNI binding {@link NativeShim}, unchanged. */
final class NativeShimApi implements NativeApi {
    static final NativeShimApi INSTANCE = new NativeShimApi();

    private NativeShimApi() {}

    @Override
    public void load() {
        NativeShim.load();
    }

    @Override
    public int slotCount() {
        return NativeShim.slotCount();
    }

    @Override
    public int slotLibrary(int slot) {
        return NativeShim.slotLibrary(slot);
    }

    @Override
    public String slotName(int slot) {
        return NativeShim.slotName(slot);
    }

    @Override
    public int slotRequired(int slot) {
        return NativeShim.slotRequired(slot);
    }

    @Override
    public long newTable() {
        return NativeShim.newTable();
    }

    @Override
    public String open(long lib, int library, String path) {
        return NativeShim.open(lib, library, path);
    }

    @Override
    public int bind(long lib, int slot, String symbol) {
        return NativeShim.bind(lib, slot, symbol);
    }

    @Override
    public int has(long lib, int slot) {
        return NativeShim.has(lib, slot);
    }

    @Override
    public void setenvDefault(String name, String value) {
        NativeShim.setenvDefault(name, value);
    }

    @Override
    public void discard(long lib) {
        NativeShim.discard(lib);
    }

    @Override
    public String cclErrorString(long lib, int code) {
        return NativeShim.cclErrorString(lib, code);
    }

    @Override
    public String cclLastError(long lib, long comm) {
        return NativeShim.cclLastError(lib, comm);
    }

    @Override
    public String runtimeErrorString(long lib, int code) {
        return NativeShim.runtimeErrorString(lib, code);
    }

    @Override
    public String driverErrorString(long lib, int code) {
        return NativeShim.driverErrorString(lib, code);
    }

    @Override
    public int getVersion(long lib, int[] version) {
        return NativeShim.getVersion(lib, version);
    }

    @Override
    public int getUniqueId(long lib, byte[] id) {
        return NativeShim.getUniqueId(lib, id);
    }

    @Override
    public int commInitRank(
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
            int maxCtas) {
        return NativeShim.commInitRank(
                lib, comm, nranks, id, rank, layoutVersion, blocking, collnetEnable, ctaPolicy, minCtas, maxCtas);
    }

    @Override
    public int commInitAll(long lib, long[] comms, int ndev, int[] devices) {
        return NativeShim.commInitAll(lib, comms, ndev, devices);
    }

    @Override
    public int commSplit(long lib, long comm, int color, int key, LongPointer out) {
        return NativeShim.commSplit(lib, comm, color, key, out);
    }

    @Override
    public int commShrink(long lib, long comm, int[] excluded, int count, LongPointer out, int flags) {
        return NativeShim.commShrink(lib, comm, excluded, count, out, flags);
    }

    @Override
    public int commRevoke(long lib, long comm, int flags) {
        return NativeShim.commRevoke(lib, comm, flags);
    }

    @Override
    public int commGetUniqueId(long lib, long comm, byte[] id) {
        return NativeShim.commGetUniqueId(lib, comm, id);
    }

    @Override
    public int commGrow(long lib, long comm, int nranks, byte[] id, int hasId, int rank, LongPointer out) {
        return NativeShim.commGrow(lib, comm, nranks, id, hasId, rank, out);
    }

    @Override
    public int commFinalize(long lib, long comm) {
        return NativeShim.commFinalize(lib, comm);
    }

    @Override
    public int commDestroy(long lib, long comm) {
        return NativeShim.commDestroy(lib, comm);
    }

    @Override
    public int commAbort(long lib, long comm) {
        return NativeShim.commAbort(lib, comm);
    }

    @Override
    public int commAsyncError(long lib, long comm, int[] error) {
        return NativeShim.commAsyncError(lib, comm, error);
    }

    @Override
    public int commCount(long lib, long comm, int[] out) {
        return NativeShim.commCount(lib, comm, out);
    }

    @Override
    public int commDevice(long lib, long comm, int[] out) {
        return NativeShim.commDevice(lib, comm, out);
    }

    @Override
    public int commUserRank(long lib, long comm, int[] out) {
        return NativeShim.commUserRank(lib, comm, out);
    }

    @Override
    public int collective(
            long lib, int kind, long send, long recv, long count, int type, int op, int peer, long comm, long stream) {
        return NativeShim.collective(lib, kind, send, recv, count, type, op, peer, comm, stream);
    }

    @Override
    public int groupStart(long lib) {
        return NativeShim.groupStart(lib);
    }

    @Override
    public int groupEnd(long lib) {
        return NativeShim.groupEnd(lib);
    }

    @Override
    public int setDevice(long lib, int device) {
        return NativeShim.setDevice(lib, device);
    }

    @Override
    public int deviceAttribute(long lib, int device, int attribute, int[] out) {
        return NativeShim.deviceAttribute(lib, device, attribute, out);
    }

    @Override
    public int deviceCount(long lib, int[] out) {
        return NativeShim.deviceCount(lib, out);
    }

    @Override
    public int memGetInfo(long lib, int device, long[] freeAndTotal) {
        return NativeShim.memGetInfo(lib, device, freeAndTotal);
    }

    @Override
    public int memAlloc(long lib, int device, long bytes, long[] out) {
        return NativeShim.memAlloc(lib, device, bytes, out);
    }

    @Override
    public int memFree(long lib, int device, long address) {
        return NativeShim.memFree(lib, device, address);
    }

    @Override
    public int runtimeMalloc(long lib, int device, long bytes, long[] out) {
        return NativeShim.runtimeMalloc(lib, device, bytes, out);
    }

    @Override
    public int runtimeFree(long lib, int device, long address) {
        return NativeShim.runtimeFree(lib, device, address);
    }

    @Override
    public int memcpy(long lib, int device, long dst, long src, long bytes) {
        return NativeShim.memcpy(lib, device, dst, src, bytes);
    }

    @Override
    public int commRegister(long lib, long comm, long address, long bytes, long[] handle) {
        return NativeShim.commRegister(lib, comm, address, bytes, handle);
    }

    @Override
    public int commDeregister(long lib, long comm, long handle) {
        return NativeShim.commDeregister(lib, comm, handle);
    }

    @Override
    public int windowRegister(long lib, long comm, long address, long bytes, int flags, LongPointer window) {
        return NativeShim.windowRegister(lib, comm, address, bytes, flags, window);
    }

    @Override
    public int windowDeregister(long lib, long comm, long window) {
        return NativeShim.windowDeregister(lib, comm, window);
    }

    @Override
    public int winGetUserPtr(long lib, long comm, long window, long[] out) {
        return NativeShim.winGetUserPtr(lib, comm, window, out);
    }

    @Override
    public int getLsaDevicePointer(long lib, long window, long offset, int lsaRank, long[] out) {
        return NativeShim.getLsaDevicePointer(lib, window, offset, lsaRank, out);
    }

    @Override
    public int driverInit(long lib) {
        return NativeShim.driverInit(lib);
    }

    @Override
    public int vmmGranularity(long lib, int device, int handleTypes, long[] out) {
        return NativeShim.vmmGranularity(lib, device, handleTypes, out);
    }

    @Override
    public int vmmFabricSupported(long lib, int device) {
        return NativeShim.vmmFabricSupported(lib, device);
    }

    @Override
    public int vmmMap(long lib, int device, long physical, long reserved, long alignment, int handleTypes, long[] out) {
        return NativeShim.vmmMap(lib, device, physical, reserved, alignment, handleTypes, out);
    }

    @Override
    public int vmmUnmap(long lib, int device, long address, long physical, long reserved, long handle) {
        return NativeShim.vmmUnmap(lib, device, address, physical, reserved, handle);
    }

    @Override
    public int streamCreate(long lib, int device, long[] out) {
        return NativeShim.streamCreate(lib, device, out);
    }

    @Override
    public int streamDestroy(long lib, long stream) {
        return NativeShim.streamDestroy(lib, stream);
    }

    @Override
    public int streamSynchronize(long lib, long stream) {
        return NativeShim.streamSynchronize(lib, stream);
    }

    @Override
    public int streamQuery(long lib, long stream) {
        return NativeShim.streamQuery(lib, stream);
    }

    @Override
    public int streamBeginCapture(long lib, long stream, int mode) {
        return NativeShim.streamBeginCapture(lib, stream, mode);
    }

    @Override
    public int streamEndCapture(long lib, long stream, long[] graph) {
        return NativeShim.streamEndCapture(lib, stream, graph);
    }

    @Override
    public int streamIsCapturing(long lib, long stream, int[] status) {
        return NativeShim.streamIsCapturing(lib, stream, status);
    }

    @Override
    public int graphInstantiate(long lib, long graph, long[] exec) {
        return NativeShim.graphInstantiate(lib, graph, exec);
    }

    @Override
    public int graphLaunch(long lib, long exec, long stream) {
        return NativeShim.graphLaunch(lib, exec, stream);
    }

    @Override
    public int graphExecDestroy(long lib, long exec) {
        return NativeShim.graphExecDestroy(lib, exec);
    }

    @Override
    public int graphDestroy(long lib, long graph) {
        return NativeShim.graphDestroy(lib, graph);
    }

    @Override
    public int eventCreate(long lib, int device, int flags, long[] out) {
        return NativeShim.eventCreate(lib, device, flags, out);
    }

    @Override
    public int eventRecord(long lib, long event, long stream) {
        return NativeShim.eventRecord(lib, event, stream);
    }

    @Override
    public int eventSynchronize(long lib, long event) {
        return NativeShim.eventSynchronize(lib, event);
    }

    @Override
    public int eventElapsedMs(long lib, long start, long end, float[] ms) {
        return NativeShim.eventElapsedMs(lib, start, end, ms);
    }

    @Override
    public int eventDestroy(long lib, long event) {
        return NativeShim.eventDestroy(lib, event);
    }

    @Override
    public int eventQuery(long lib, long event) {
        return NativeShim.eventQuery(lib, event);
    }

    @Override
    public int streamWaitEvent(long lib, long stream, long event) {
        return NativeShim.streamWaitEvent(lib, stream, event);
    }

    @Override
    public int classify(long lib, int device, long address, long[] out) {
        return NativeShim.classify(lib, device, address, out);
    }

    @Override
    public int runtimeMallocHost(long lib, int device, long bytes, long[] out) {
        return NativeShim.runtimeMallocHost(lib, device, bytes, out);
    }

    @Override
    public int runtimeFreeHost(long lib, long address) {
        return NativeShim.runtimeFreeHost(lib, address);
    }

    @Override
    public int runtimeHostDevicePointer(long lib, int device, long host, long[] out) {
        return NativeShim.runtimeHostDevicePointer(lib, device, host, out);
    }

    @Override
    public int runtimeMallocManaged(long lib, int device, long bytes, long[] out) {
        return NativeShim.runtimeMallocManaged(lib, device, bytes, out);
    }

    @Override
    public int benchEnqueue(
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
            int iters) {
        return NativeShim.benchEnqueue(lib, kind, send, recv, count, type, op, root, comm, stream, iters);
    }
}
