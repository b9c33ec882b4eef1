package dev.collectives.backend.device;

import dev.collectives.annotation.OpKind;
import dev.collectives.runtime.Topology;
import dev.collectives.runtime.spi.Lineage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;

/**
 * A scripted native library for the device backend's tests: no GPU, no JNI. Every call succeeds with plausible
 * outputs (fresh handles, device memory aligned to 4096 bytes, NCCL 2.28.9 with every symbol of the shim's table)
 * unless the test scripts otherwise: a call that fails with a code ({@link #failing}), a symbol the library lacks
 * ({@link #lacking}), an asynchronous error ({@link #asyncError}), streams that never finish
 * ({@link #streamsNeverFinish}; an abort ends them unless {@link #streamsOutliveAbort}), a call that a non-blocking communicator answers "in progress" for a number of
 * polls or forever ({@link #inProgress}), or something to run when a call is made ({@link #on}). It records every call
 * ({@link #count}, {@link #calls}) and every handle it gave out, and notes as {@link #misuse} a call on a handle that
 * it never gave or that was freed already (a communicator aborted or destroyed, memory freed twice), which the
 * tests assert never happens. {@link #communicator} makes a {@link DeviceCommunicator} over it. The benchmarks of the
 * Java call path extend it to answer ops and graph launches without recording them.
 */
class ScriptedNativeApi implements NativeApi {
    /** What a synchronize waits before it gives up, on {@link #waits()}'s clock. */
    static final Duration SYNC_TIMEOUT = Duration.ofSeconds(2);
    /** How long {@link #communicator} waits for the other ranks to join, on {@link #waits()}'s clock. */
    static final Duration INIT_TIMEOUT = Duration.ofSeconds(10);
    /** Polls of a call {@link #inProgress} that never ends. */
    static final int FOREVER = Integer.MAX_VALUE;
    /** ncclInProgress. */
    private static final int IN_PROGRESS = 7;
    /** Calls that NCCL (2.28) runs as a group job on a non-blocking communicator, answering success while it runs. */
    private static final Set<String> GROUP_JOBS = Set.of("commSplit", "commShrink", "windowRegister");

    private static final Pattern SLOT = Pattern.compile("X\\((\\w+), CX_(CCL|RT|DRV), \"(\\w+)\", ([01])\\)");
    private static final List<String> ROLES = List.of("CCL", "RT", "DRV");
    /** The collective library's words for its result codes, 0 to 7. */
    private static final List<String> CCL_ERRORS = List.of(
            "no error",
            "unhandled cuda error",
            "unhandled system error",
            "internal error",
            "invalid argument",
            "invalid usage",
            "remote process exited or there was a network error",
            "operation in progress");
    /** cudaErrorIllegalAddress: what a poisoned device context answers every call with. */
    static final int ILLEGAL_ADDRESS = 700;

    private record Slot(int library, String name, boolean required) {}

    private final List<Slot> slots = readSlotTable();
    private final Set<String> lacking = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> failing = new ConcurrentHashMap<>();
    private final Map<String, Runnable> hooks = new ConcurrentHashMap<>();
    private final Map<String, Integer> inProgress = new ConcurrentHashMap<>();
    /** How many more polls of {@code CommGetAsyncError} say "in progress" ({@link #FOREVER}: all). */
    private final AtomicLong pendingPolls = new AtomicLong();
    /** Whether the call being made answers "in progress", so that what it stores comes when it completes. */
    private volatile boolean completesLater;
    /** The stores of calls that answered "in progress", made when a poll reports them done or at an abort. */
    private final List<Runnable> storesAtCompletion = new CopyOnWriteArrayList<>();
    /** The communicator of each {@code CommGetAsyncError}, in order. */
    private final List<Long> polled = new CopyOnWriteArrayList<>();
    /** Whether {@link #waits()}'s clock stands still. */
    private volatile boolean clockStopped;

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final List<String> misuse = new CopyOnWriteArrayList<>();
    /** Handle → what it is ("comm", "memory", "stream", ...), while it lives. */
    private final Map<Long, String> live = new ConcurrentHashMap<>();

    private final AtomicLong nextHandle = new AtomicLong(0x10_0000);
    /** The clock {@link #waits()} reads: each reading is one second later than the last. */
    private final AtomicLong clock = new AtomicLong();

    private volatile int asyncError;
    private volatile int streamQuery;
    private volatile boolean streamsOutliveAbort;
    private volatile int childSize = 1;
    private volatile int[] gathered;
    private volatile int childRank;
    private volatile int shrinkFlags = -1;
    private volatile Init lastInit;

    /** The arguments of a {@code CommInitRank(Config)}: the size, the rank, the unique id and the config's blocking. */
    record Init(int size, int rank, byte[] id, int blocking) {}

    /** What the last {@code commGrow} was called with: the parent (0 on a new rank), the size, the id, the rank. */
    record GrowCall(long parent, int size, byte[] id, int rank) {}

    private volatile GrowCall lastGrow;

    // ---- the script ---------------------------------------------------------------------------------------------

    /** The library lacks the symbol of this generic name (e.g. "CommShrink"), as an older version would. */
    ScriptedNativeApi lacking(String genericName) {
        lacking.add(genericName);
        return this;
    }

    /** From now on the call of this {@link NativeApi} method name (e.g. "commFinalize") returns {@code code}. */
    ScriptedNativeApi failing(String call, int code) {
        failing.put(call, code);
        return this;
    }

    /**
     * From now on {@code call} (e.g. "commInitRank", "groupEnd") does its work but answers "in progress", as a
     * non-blocking communicator does; then the next {@code polls} polls of {@code CommGetAsyncError}, of any
     * communicator, say "in progress" still ({@link #FOREVER}: every one), and the later ones what
     * {@link #asyncError} says. A split, a shrink and a window registration answer success instead, as NCCL 2.28
     * does while the group job that makes the child or the window runs ({@link #GROUP_JOBS}).
     */
    ScriptedNativeApi inProgress(String call, int polls) {
        inProgress.put(call, polls);
        return this;
    }

    /** {@link #waits()}'s clock stands still: no wait times out, so only an abort or the library ends it. */
    ScriptedNativeApi clockStops() {
        clockStopped = true;
        return this;
    }

    /** Runs {@code hook} on the calling thread each time {@code call} is made, before it returns. */
    ScriptedNativeApi on(String call, Runnable hook) {
        hooks.put(call, hook);
        return this;
    }

    /** What {@code CommGetAsyncError} reports from now on (6: a peer's process exited). */
    ScriptedNativeApi asyncError(int code) {
        asyncError = code;
        return this;
    }

    /** From now on every stream query says "not ready": the enqueued work waits on a peer that never comes. */
    ScriptedNativeApi streamsNeverFinish() {
        streamQuery = NativeLibrary.NOT_READY;
        return this;
    }

    /**
     * From now on an abort leaves the streams as they are, until {@link #streamsFinish}: kernels still running once the
     * abort returned. By default an abort ends them, as the library's does.
     */
    ScriptedNativeApi streamsOutliveAbort() {
        streamsOutliveAbort = true;
        return this;
    }

    /** From now on every stream query says the enqueued work is done (the default). */
    ScriptedNativeApi streamsFinish() {
        streamQuery = 0;
        return this;
    }

    /**
     * What the next copy from device memory of as many integers brings to the host: every rank's part of a gather
     * (e.g. the parent ranks a split's child gathers), as if the others had contributed them.
     */
    ScriptedNativeApi gathers(int... values) {
        gathered = values.clone();
        return this;
    }

    /** The size and rank that {@code CommCount} and {@code CommUserRank} give a child communicator. */
    ScriptedNativeApi children(int size, int rank) {
        childSize = size;
        childRank = rank;
        return this;
    }

    /**
     * A communicator handle that another library made in this process, of {@code size} ranks with this one
     * {@code rank} (what {@code CommCount} and {@code CommUserRank} answer from now on).
     */
    long madeElsewhere(int size, int rank) {
        children(size, rank);
        return make("comm");
    }

    // ---- what happened ------------------------------------------------------------------------------------------

    /** How many times {@code call} (a {@link NativeApi} method name) succeeded or failed so far. */
    int count(String call) {
        return (int) calls.stream().filter(call::equals).count();
    }

    /** Every call so far, in order. */
    List<String> calls() {
        return List.copyOf(calls);
    }

    /** The communicator of each {@code CommGetAsyncError} so far, in order. */
    List<Long> polled() {
        return List.copyOf(polled);
    }

    /** The last {@code CommInitRank(Config)}, or null before any. */
    Init lastInit() {
        return lastInit;
    }

    GrowCall lastGrow() {
        return lastGrow;
    }

    /** The flags of the last {@code CommShrink}, or -1 before any. */
    int shrinkFlags() {
        return shrinkFlags;
    }

    /** Whether {@code handle} is live: given out and not yet freed (destroyed, aborted). */
    boolean isLive(long handle) {
        return live.containsKey(handle);
    }

    /** Calls on handles never given or already freed, each naming the call and the handle. */
    List<String> misuse() {
        return List.copyOf(misuse);
    }

    /** Waits until {@code call} has been made {@code times} times (an abort runs on a thread of its own). */
    synchronized void awaitCount(String call, int times) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (count(call) < times) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(call + " was made " + count(call) + " times, not " + times + ": " + calls);
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    // ---- a communicator over it ---------------------------------------------------------------------------------

    /** The library, opened through this fake as {@code nccl}. */
    NativeLibrary library() {
        Object opened = NativeLibrary.tryOpen(Dialect.NCCL, this);
        if (!(opened instanceof NativeLibrary library)) {
            throw new AssertionError("the scripted library did not open: " + opened);
        }
        return library;
    }

    /** Waits for tests: aborts under a deadline that never passes, {@link #SYNC_TIMEOUT} on a clock that ticks. */
    Waits waits() {
        AbortWatch aborts = new AbortWatch(Duration.ofSeconds(60), AbortWatch.Policy.REPORT, status -> {
            throw new AssertionError("the abort watch halted the process with status " + status);
        });
        return new Waits(aborts, SYNC_TIMEOUT.toNanos(), () -> clock.addAndGet(clockStopped ? 0 : 1_000_000_000L));
    }

    /** Rank {@code rank} of a communicator of {@code size} ranks on device 0, one rank per node, made by init. */
    DeviceCommunicator communicator(int rank, int size) {
        NativeLibrary library = library();
        long handle = CommConfig.DEFAULT.initRank(library, size, new byte[128], rank, waits(), INIT_TIMEOUT);
        return new DeviceCommunicator(
                library, handle, rank, size, 0, new Topology(size, 1), false, waits(), null, Lineage.newJob());
    }

    // ---- bookkeeping --------------------------------------------------------------------------------------------

    private static List<Slot> readSlotTable() {
        try (InputStream in = ScriptedNativeApi.class.getResourceAsStream("collectives_device.h")) {
            String header = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            List<Slot> table = new ArrayList<>();
            Matcher m = SLOT.matcher(header);
            while (m.find()) {
                table.add(new Slot(
                        ROLES.indexOf(m.group(2)), m.group(3), m.group(4).equals("1")));
            }
            return table;
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("collectives_device.h is not on the class path", e);
        }
    }

    /** Records {@code call}, runs its hook, and returns its scripted code; runs {@code effect} when that is 0. */
    private int enter(String call, Runnable effect) {
        Runnable hook = hooks.get(call);
        if (hook != null) {
            hook.run();
        }
        int rc = failing.getOrDefault(call, 0);
        Integer polls = inProgress.get(call);
        if (rc == 0 && polls != null) {
            pendingPolls.set(polls);
            rc = IN_PROGRESS;
        }
        if (rc == 0 || rc == IN_PROGRESS) {
            completesLater = rc == IN_PROGRESS;
            effect.run();
        }
        called(call);
        return rc == IN_PROGRESS && GROUP_JOBS.contains(call) ? 0 : rc;
    }

    private int enter(String call) {
        return enter(call, () -> {});
    }

    private synchronized void called(String call) {
        calls.add(call);
        notifyAll();
    }

    /**
     * Stores {@code handle} into {@code slot} as the library does: when the call completes, which for a call that
     * answered "in progress" is when a poll reports it done (or it is aborted), from the library's own thread; an
     * init stores its communicator before it returns too ({@code alsoAtOnce}). A slot freed by then is misuse: the
     * real library would store into freed memory.
     */
    private void storeWhenDone(LongPointer slot, long handle, boolean alsoAtOnce) {
        if (!completesLater || alsoAtOnce) {
            slot.put(0, handle);
        }
        if (completesLater) {
            storesAtCompletion.add(() -> {
                if (slot.isNull()) {
                    misuse.add("the library stored 0x" + Long.toHexString(handle) + " into a slot freed before the"
                            + " call that fills it completed");
                } else {
                    slot.put(0, handle);
                }
            });
        }
    }

    /** The calls in progress complete: what they store is stored. */
    private void complete() {
        for (Runnable store : storesAtCompletion) {
            storesAtCompletion.remove(store);
            store.run();
        }
    }

    private long make(String kind) {
        long handle = nextHandle.getAndAdd(0x10000);
        live.put(handle, kind);
        return handle;
    }

    private void use(String kind, long handle, String call) {
        if (!kind.equals(live.get(handle))) {
            misuse.add(call + " on " + kind + " 0x" + Long.toHexString(handle) + ", which is not live");
        }
    }

    private void free(String kind, long handle, String call) {
        if (!live.remove(handle, kind)) {
            misuse.add(call + " frees " + kind + " 0x" + Long.toHexString(handle) + ", which is not live");
        }
    }

    // ---- symbol table -------------------------------------------------------------------------------------------

    @Override
    public void load() {}

    @Override
    public int slotCount() {
        return slots.size();
    }

    @Override
    public int slotLibrary(int slot) {
        return slots.get(slot).library();
    }

    @Override
    public String slotName(int slot) {
        return slots.get(slot).name();
    }

    @Override
    public int slotRequired(int slot) {
        return slots.get(slot).required() ? 1 : 0;
    }

    @Override
    public long newTable() {
        return make("table");
    }

    @Override
    public String open(long lib, int library, String path) {
        return null;
    }

    @Override
    public int bind(long lib, int slot, String symbol) {
        return has(lib, slot);
    }

    @Override
    public int has(long lib, int slot) {
        return lacking.contains(slots.get(slot).name()) ? 0 : 1;
    }

    @Override
    public void setenvDefault(String name, String value) {
        called("setenvDefault");
    }

    @Override
    public void discard(long lib) {
        free("table", lib, "discard");
    }

    // ---- errors -------------------------------------------------------------------------------------------------

    @Override
    public String cclErrorString(long lib, int code) {
        return code >= 0 && code < CCL_ERRORS.size() ? CCL_ERRORS.get(code) : "unknown result code " + code;
    }

    @Override
    public String cclLastError(long lib, long comm) {
        return "";
    }

    @Override
    public String runtimeErrorString(long lib, int code) {
        return code == ILLEGAL_ADDRESS ? "an illegal memory access was encountered" : "runtime error " + code;
    }

    @Override
    public String driverErrorString(long lib, int code) {
        return "driver error " + code;
    }

    // ---- communicators ------------------------------------------------------------------------------------------

    @Override
    public int getVersion(long lib, int[] version) {
        return enter("getVersion", () -> version[0] = 22809);
    }

    /** Each id is the bytes 1, 2, ..., 128. */
    @Override
    public int getUniqueId(long lib, byte[] id) {
        return enter("getUniqueId", () -> {
            for (int i = 0; i < id.length; i++) {
                id[i] = (byte) (i + 1);
            }
        });
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
        lastInit = new Init(nranks, rank, id.clone(), blocking);
        return enter("commInitRank", () -> storeWhenDone(comm, make("comm"), true));
    }

    @Override
    public int commInitAll(long lib, long[] comms, int ndev, int[] devices) {
        return enter("commInitAll", () -> {
            for (int i = 0; i < ndev; i++) {
                comms[i] = make("comm");
            }
        });
    }

    @Override
    public int commSplit(long lib, long comm, int color, int key, LongPointer out) {
        return enter("commSplit", () -> {
            use("comm", comm, "commSplit");
            storeWhenDone(out, make("comm"), false);
        });
    }

    @Override
    public int commShrink(long lib, long comm, int[] excluded, int count, LongPointer out, int flags) {
        shrinkFlags = flags;
        return enter("commShrink", () -> {
            use("comm", comm, "commShrink");
            storeWhenDone(out, make("comm"), false);
        });
    }

    /** Each grow id is the bytes 9, 10, ..., 136. */
    @Override
    public int commGetUniqueId(long lib, long comm, byte[] id) {
        return enter("commGetUniqueId", () -> {
            use("comm", comm, "commGetUniqueId");
            for (int i = 0; i < id.length; i++) {
                id[i] = (byte) (i + 9);
            }
        });
    }

    @Override
    public int commGrow(long lib, long comm, int nranks, byte[] id, int hasId, int rank, LongPointer out) {
        lastGrow = new GrowCall(comm, nranks, hasId == 1 ? id.clone() : null, rank);
        return enter("commGrow", () -> {
            if (comm != 0) {
                use("comm", comm, "commGrow");
            }
            storeWhenDone(out, make("comm"), true);
        });
    }

    @Override
    public int commRevoke(long lib, long comm, int flags) {
        return enter("commRevoke", () -> use("comm", comm, "commRevoke"));
    }

    @Override
    public int commFinalize(long lib, long comm) {
        return enter("commFinalize", () -> use("comm", comm, "commFinalize"));
    }

    @Override
    public int commDestroy(long lib, long comm) {
        return enter("commDestroy", () -> free("comm", comm, "commDestroy"));
    }

    @Override
    public int commAbort(long lib, long comm) {
        return enter("commAbort", () -> {
            complete(); // the library's thread ends its work, storing what it made
            free("comm", comm, "commAbort");
            if (!streamsOutliveAbort) {
                streamQuery = 0; // the abort makes the communicator's kernels exit
            }
        });
    }

    @Override
    public int commAsyncError(long lib, long comm, int[] error) {
        return enter("commAsyncError", () -> {
            use("comm", comm, "commAsyncError");
            polled.add(comm);
            long pending = pendingPolls.getAndUpdate(left -> left == FOREVER || left == 0 ? left : left - 1);
            if (pending == 0) {
                complete();
            }
            error[0] = pending > 0 ? IN_PROGRESS : asyncError;
        });
    }

    @Override
    public int commCount(long lib, long comm, int[] out) {
        return enter("commCount", () -> out[0] = childSize);
    }

    @Override
    public int commDevice(long lib, long comm, int[] out) {
        return enter("commDevice", () -> out[0] = 0);
    }

    @Override
    public int commUserRank(long lib, long comm, int[] out) {
        return enter("commUserRank", () -> out[0] = childRank);
    }

    // ---- collectives --------------------------------------------------------------------------------------------

    private int collective(String call, long comm) {
        return enter(call, () -> use("comm", comm, call));
    }

    /** Recorded by the op's method name ("allReduce", "send"): the shim's number is the op's place in the catalogue. */
    @Override
    public int collective(
            long lib, int kind, long send, long recv, long count, int type, int op, int peer, long comm, long stream) {
        return collective(OpKind.values()[kind].method(), comm);
    }

    @Override
    public int groupStart(long lib) {
        return enter("groupStart");
    }

    @Override
    public int groupEnd(long lib) {
        return enter("groupEnd");
    }

    // ---- memory and registration --------------------------------------------------------------------------------

    @Override
    public int setDevice(long lib, int device) {
        return enter("setDevice");
    }

    @Override
    public int deviceAttribute(long lib, int device, int attribute, int[] out) {
        return enter("deviceAttribute", () -> out[0] = 0);
    }

    @Override
    public int deviceCount(long lib, int[] out) {
        return enter("deviceCount", () -> out[0] = 1);
    }

    @Override
    public int memGetInfo(long lib, int device, long[] freeAndTotal) {
        return enter("memGetInfo", () -> {
            freeAndTotal[0] = 1L << 30;
            freeAndTotal[1] = 1L << 30;
        });
    }

    @Override
    public int memAlloc(long lib, int device, long bytes, long[] out) {
        return enter("memAlloc", () -> out[0] = make("memory"));
    }

    @Override
    public int memFree(long lib, int device, long address) {
        return enter("memFree", () -> free("memory", address, "memFree"));
    }

    @Override
    public int runtimeMalloc(long lib, int device, long bytes, long[] out) {
        return enter("runtimeMalloc", () -> out[0] = make("memory"));
    }

    @Override
    public int runtimeFree(long lib, int device, long address) {
        return enter("runtimeFree", () -> free("memory", address, "runtimeFree"));
    }

    @Override
    public int memcpy(long lib, int device, long dst, long src, long bytes) {
        return enter("memcpy", () -> {
            int[] values = gathered;
            if (values != null && "memory".equals(live.get(src)) && bytes == 4L * values.length) {
                gathered = null;
                try (IntPointer from = new IntPointer(values)) {
                    Pointer.memcpy(new HostAddress(dst), from, bytes);
                }
            }
        });
    }

    /** Host memory at {@code address}, which a copy from the device writes. */
    private static final class HostAddress extends Pointer {
        HostAddress(long address) {
            this.address = address;
        }
    }

    @Override
    public int commRegister(long lib, long comm, long address, long bytes, long[] handle) {
        return enter("commRegister", () -> {
            use("comm", comm, "commRegister");
            handle[0] = make("registration");
        });
    }

    @Override
    public int commDeregister(long lib, long comm, long handle) {
        return enter("commDeregister", () -> {
            use("comm", comm, "commDeregister");
            free("registration", handle, "commDeregister");
        });
    }

    @Override
    public int windowRegister(long lib, long comm, long address, long bytes, int flags, LongPointer window) {
        return enter("windowRegister", () -> {
            use("comm", comm, "windowRegister");
            storeWhenDone(window, make("window"), false);
        });
    }

    @Override
    public int windowDeregister(long lib, long comm, long window) {
        return enter("windowDeregister", () -> {
            use("comm", comm, "windowDeregister");
            free("window", window, "windowDeregister");
        });
    }

    @Override
    public int winGetUserPtr(long lib, long comm, long window, long[] out) {
        return enter("winGetUserPtr", () -> out[0] = window);
    }

    @Override
    public int getLsaDevicePointer(long lib, long window, long offset, int lsaRank, long[] out) {
        return enter("getLsaDevicePointer", () -> out[0] = window + offset);
    }

    // ---- VMM ----------------------------------------------------------------------------------------------------

    @Override
    public int driverInit(long lib) {
        return enter("driverInit");
    }

    @Override
    public int vmmGranularity(long lib, int device, int handleTypes, long[] out) {
        return enter("vmmGranularity", () -> out[0] = 2L << 20);
    }

    @Override
    public int vmmFabricSupported(long lib, int device) {
        called("vmmFabricSupported");
        return 0;
    }

    @Override
    public int vmmMap(long lib, int device, long physical, long reserved, long alignment, int handleTypes, long[] out) {
        return enter("vmmMap", () -> {
            out[0] = make("memory");
            out[1] = make("allocation");
        });
    }

    @Override
    public int vmmUnmap(long lib, int device, long address, long physical, long reserved, long handle) {
        return enter("vmmUnmap", () -> {
            free("memory", address, "vmmUnmap");
            free("allocation", handle, "vmmUnmap");
        });
    }

    // ---- streams, events, graphs --------------------------------------------------------------------------------

    @Override
    public int streamCreate(long lib, int device, long[] out) {
        return enter("streamCreate", () -> out[0] = make("stream"));
    }

    @Override
    public int streamDestroy(long lib, long stream) {
        return enter("streamDestroy", () -> free("stream", stream, "streamDestroy"));
    }

    @Override
    public int streamSynchronize(long lib, long stream) {
        return enter("streamSynchronize");
    }

    @Override
    public int streamQuery(long lib, long stream) {
        int rc = enter("streamQuery");
        return rc != 0 ? rc : streamQuery;
    }

    @Override
    public int streamBeginCapture(long lib, long stream, int mode) {
        return enter("streamBeginCapture");
    }

    @Override
    public int streamEndCapture(long lib, long stream, long[] graph) {
        return enter("streamEndCapture", () -> graph[0] = make("graph"));
    }

    @Override
    public int streamIsCapturing(long lib, long stream, int[] status) {
        return enter("streamIsCapturing", () -> status[0] = 0);
    }

    @Override
    public int graphInstantiate(long lib, long graph, long[] exec) {
        return enter("graphInstantiate", () -> exec[0] = make("exec"));
    }

    @Override
    public int graphLaunch(long lib, long exec, long stream) {
        return enter("graphLaunch", () -> use("exec", exec, "graphLaunch"));
    }

    @Override
    public int graphExecDestroy(long lib, long exec) {
        return enter("graphExecDestroy", () -> free("exec", exec, "graphExecDestroy"));
    }

    @Override
    public int graphDestroy(long lib, long graph) {
        return enter("graphDestroy", () -> free("graph", graph, "graphDestroy"));
    }

    @Override
    public int eventCreate(long lib, int device, int flags, long[] out) {
        return enter("eventCreate", () -> out[0] = make("event"));
    }

    @Override
    public int eventRecord(long lib, long event, long stream) {
        return enter("eventRecord");
    }

    @Override
    public int eventSynchronize(long lib, long event) {
        return enter("eventSynchronize");
    }

    @Override
    public int eventElapsedMs(long lib, long start, long end, float[] ms) {
        return enter("eventElapsedMs");
    }

    @Override
    public int eventDestroy(long lib, long event) {
        return enter("eventDestroy", () -> free("event", event, "eventDestroy"));
    }

    @Override
    public int eventQuery(long lib, long event) {
        int rc = enter("eventQuery");
        return rc != 0 ? rc : streamQuery;
    }

    @Override
    public int streamWaitEvent(long lib, long stream, long event) {
        return enter("streamWaitEvent");
    }

    // ---- memory owned elsewhere ---------------------------------------------------------------------------------

    /** Every address is unknown to the driver: wrap refuses it. */
    @Override
    public int classify(long lib, int device, long address, long[] out) {
        return enter("classify", () -> out[0] = 0);
    }

    @Override
    public int runtimeMallocHost(long lib, int device, long bytes, long[] out) {
        return enter("runtimeMallocHost", () -> out[0] = make("host memory"));
    }

    @Override
    public int runtimeFreeHost(long lib, long address) {
        return enter("runtimeFreeHost", () -> free("host memory", address, "runtimeFreeHost"));
    }

    /** Unified addressing: the device reaches pinned host memory at the host's address. */
    @Override
    public int runtimeHostDevicePointer(long lib, int device, long host, long[] out) {
        return enter("runtimeHostDevicePointer", () -> out[0] = host);
    }

    @Override
    public int runtimeMallocManaged(long lib, int device, long bytes, long[] out) {
        return enter("runtimeMallocManaged", () -> out[0] = make("memory"));
    }

    // ---- the benchmarks' native loop ----------------------------------------------------------------------------

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
        return collective("benchEnqueue", comm);
    }
}
