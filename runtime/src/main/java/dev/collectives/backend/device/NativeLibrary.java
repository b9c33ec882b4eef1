package dev.collectives.backend.device;

import dev.collectives.annotation.OpKind;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One dialect's vendor libraries, opened with dlopen() through the shim and resolved symbol by symbol. Opening
 * happens once per dialect and process; a failure is remembered with its reason (library, paths tried, missing
 * symbol). The check methods turn result codes into {@link CollectivesException}s naming the call.
 */
final class NativeLibrary {
    /** cudaErrorNotReady/musaErrorNotReady: a stream query's "still running". */
    static final int NOT_READY = 600;

    private static final Map<Dialect, Object> OPENED = new EnumMap<>(Dialect.class);
    private static final System.Logger LOG = System.getLogger("dev.collectives.device");

    final Dialect dialect;
    /** The shim's functions: the native library, or a scripted one in tests. */
    final NativeApi api;
    /** The shim's table: pass it as the first argument of every {@link NativeApi} function. */
    final long lib;
    /** e.g. 22809 */
    final int version;
    /** The file of the collective library that was opened, as dlopen was given it: "libnccl.so.2", a path. */
    final String cclFile;

    private final String[] slotSymbols;

    private NativeLibrary(Dialect dialect, NativeApi api, long lib, int version, String cclFile, String[] slotSymbols) {
        this.dialect = dialect;
        this.api = api;
        this.lib = lib;
        this.version = version;
        this.cclFile = cclFile;
        this.slotSymbols = slotSymbols;
    }

    /** The opened library, or a {@link String} saying why it could not be opened. */
    static synchronized Object open(Dialect dialect) {
        return OPENED.computeIfAbsent(dialect, d -> {
            Object opened = tryOpen(d, NativeShimApi.INSTANCE);
            LOG.log(
                    Level.DEBUG,
                    () -> d.backendName()
                            + (opened instanceof NativeLibrary library
                                    ? ": opened library version " + library.versionString()
                                    : " is unavailable: " + opened));
            return opened;
        });
    }

    /** The opened library; throws naming what is missing. */
    static NativeLibrary require(Dialect dialect) {
        Object opened = open(dialect);
        if (opened instanceof NativeLibrary) {
            return (NativeLibrary) opened;
        }
        throw CollectivesException.usage(-1, "backend '" + dialect.backendName() + "' is unavailable: " + opened);
    }

    /**
     * Opens through {@code api} without the cache: the library, or a {@link String} saying why it could not be
     * opened (tests use it to try other paths, and to open a scripted library).
     */
    static Object tryOpen(Dialect dialect, NativeApi api) {
        try {
            api.load();
            Slots.verify(api);
        } catch (Throwable e) {
            return "the JNI shim (jniNativeShim) did not load on this platform: " + e;
        }
        long lib = api.newTable();
        String cclFile = null;
        for (int role = 0; role < Dialect.ROLES.size(); role++) {
            List<String> tried = new ArrayList<>();
            boolean opened = false;
            for (String file : dialect.candidates(role)) {
                String why = api.open(lib, role, file);
                if (why == null) {
                    LOG.log(Level.DEBUG, "{0}: the {1} is {2}", dialect.backendName(), Dialect.ROLES.get(role), file);
                    opened = true;
                    cclFile = role == 0 ? file : cclFile;
                    break;
                }
                tried.add(file + " (" + why + ")");
            }
            if (!opened) {
                api.discard(lib);
                return "cannot open the " + Dialect.ROLES.get(role) + " of " + dialect.backendName() + "; tried "
                        + String.join(", ", tried) + "; set the system property " + dialect.libraryProperty(role)
                        + " or the variable " + dialect.libraryVariable(role) + " to its path";
            }
        }
        int slots = api.slotCount();
        String[] symbols = new String[slots];
        for (int slot = 0; slot < slots; slot++) {
            int role = api.slotLibrary(slot);
            symbols[slot] = dialect.symbol(role, api.slotName(slot));
            if (api.bind(lib, slot, symbols[slot]) == 0 && api.slotRequired(slot) != 0) {
                api.discard(lib);
                return "the " + Dialect.ROLES.get(role) + " of " + dialect.backendName() + " ("
                        + dialect.candidates(role) + ") lacks the symbol " + symbols[slot];
            }
        }
        int[] version = new int[1];
        int rc = api.getVersion(lib, version);
        if (rc != 0) {
            api.discard(lib);
            return dialect.ccl("GetVersion") + " failed with " + rc;
        }
        rc = api.driverInit(lib);
        if (rc != 0) {
            String why = api.driverErrorString(lib, rc);
            api.discard(lib);
            return dialect.symbol(2, "Init") + " failed with " + rc + " (" + why + ")";
        }
        return new NativeLibrary(dialect, api, lib, version[0], cclFile, symbols);
    }

    /** Whether an optional function exists (window helpers, AlltoAll, Gather, Scatter, config init). */
    boolean has(int slot) {
        return api.has(lib, slot) != 0;
    }

    /** Throws, naming the missing symbols, unless the libraries have every one of {@code slots}. */
    void requireSymbols(int rank, String what, int... slots) {
        List<String> missing = new ArrayList<>();
        for (int slot : slots) {
            if (!has(slot)) {
                missing.add(symbol(slot));
            }
        }
        if (!missing.isEmpty()) {
            throw CollectivesException.usage(
                    rank,
                    what + " needs " + String.join(", ", missing) + ", which " + dialect.backendName()
                            + "'s libraries lack");
        }
    }

    String symbol(int slot) {
        return slotSymbols[slot];
    }

    /** Throws, naming the library's version, unless it has the function of {@code slot}. */
    void requireAvailable(int rank, int slot) {
        if (!has(slot)) {
            throw CollectivesException.usage(
                    rank,
                    symbol(slot) + " is not available in this library version ("
                            + dialect.backendName().toUpperCase(Locale.ROOT) + " " + versionString() + ")");
        }
    }

    /** "2.28.9" for 22809 (and 2.x.y codes before 2.9: 1000 × major + 100 × minor + patch). */
    String versionString() {
        int v = version;
        return v >= 10000
                ? v / 10000 + "." + v / 100 % 100 + "." + v % 100
                : v / 1000 + "." + v / 100 % 10 + "." + v % 100;
    }

    /** The config layout to pass (22800, 22700), or 0 where the library predates CTAPolicy (plain init). */
    int configLayout() {
        if (!has(Slots.COMM_INIT_RANK_CONFIG)) {
            return 0;
        }
        return version >= 22800 ? 22800 : version >= 22700 ? 22700 : 0;
    }

    // ---- result checks -------------------------------------------------------------------------------------

    /** A collective-library call ({@code ncclX}): the message carries GetErrorString and GetLastError. */
    void check(int rc, int rank, long comm, String genericName) {
        if (rc != 0) {
            throw cclFailure(rc, rank, comm, dialect.ccl(genericName));
        }
    }

    CollectivesException cclFailure(int rc, int rank, long comm, String call) {
        return cclFailure(rc, rank, comm, call, "");
    }

    /** The failure of {@code call}, with what followed from it ({@code consequence}, e.g. "; … aborted") last. */
    CollectivesException cclFailure(int rc, int rank, long comm, String call, String consequence) {
        String detail = api.cclErrorString(lib, rc);
        String last = api.cclLastError(lib, comm);
        if (last != null && !last.isEmpty()) {
            detail += "; last error: " + last;
        }
        return CollectivesException.library(Result.of(rc), rank, call, detail + consequence);
    }

    /** A device-runtime call ({@code cudaX}): unhandled device errors. */
    void checkRuntime(int rc, int rank, String genericName) {
        if (rc != 0) {
            throw CollectivesException.library(
                    Result.UNHANDLED_DEVICE_ERROR,
                    rank,
                    dialect.symbol(1, genericName),
                    "error " + rc + ": " + api.runtimeErrorString(lib, rc));
        }
    }

    /** A driver call ({@code cuX}). */
    void checkDriver(int rc, int rank, String genericName) {
        if (rc != 0) {
            throw CollectivesException.library(
                    Result.UNHANDLED_DEVICE_ERROR,
                    rank,
                    dialect.symbol(2, genericName),
                    "error " + rc + ": " + api.driverErrorString(lib, rc));
        }
    }

    int deviceCount() {
        int[] count = new int[1];
        int rc = api.deviceCount(lib, count);
        return rc == 0 ? count[0] : 0;
    }

    /** Free and total bytes of device memory on {@code device}. */
    long[] memoryInfo(int device) {
        long[] info = new long[2];
        checkRuntime(api.memGetInfo(lib, device, info), -1, "MemGetInfo");
        return info;
    }

    /** The shim's slot numbers, in the order of its CX_SYMBOLS table. */
    static final class Slots {
        static final int COMM_INIT_RANK_CONFIG = 3;
        static final int COMM_SPLIT = 5;
        static final int ALL_TO_ALL = 20;
        static final int WINDOW_REGISTER = 29;
        static final int WINDOW_DEREGISTER = 30;
        static final int WIN_GET_USER_PTR = 31;
        static final int GET_LSA_DEVICE_POINTER = 32;
        static final int EVENT_CREATE = 52;
        static final int EVENT_QUERY = 68;
        static final int STREAM_WAIT_EVENT = 69;
        static final int POINTER_GET_ATTRIBUTES = 73;
        static final int MEM_GET_ADDRESS_RANGE = 74;
        static final int MEM_RETAIN_ALLOCATION_HANDLE = 75;
        static final int MEM_GET_ALLOCATION_PROPERTIES = 76;
        static final int MALLOC_HOST = 70;
        static final int FREE_HOST = 71;
        static final int COMM_SHRINK = 77;
        static final int HOST_GET_DEVICE_POINTER = 78;
        static final int COMM_REVOKE = 79;
        static final int GATHER = 80;
        static final int SCATTER = 81;

        private Slots() {}

        /** Fails fast if the shim's table and these numbers disagree. */
        static void verify(NativeApi api) {
            expect(api, COMM_INIT_RANK_CONFIG, "CommInitRankConfig");
            expect(api, COMM_SPLIT, "CommSplit");
            expect(api, ALL_TO_ALL, OpKind.ALL_TO_ALL.cName());
            expect(api, WINDOW_REGISTER, "CommWindowRegister");
            expect(api, WINDOW_DEREGISTER, "CommWindowDeregister");
            expect(api, WIN_GET_USER_PTR, "WinGetUserPtr");
            expect(api, GET_LSA_DEVICE_POINTER, "GetLsaDevicePointer");
            expect(api, EVENT_CREATE, "EventCreateWithFlags");
            expect(api, EVENT_QUERY, "EventQuery");
            expect(api, STREAM_WAIT_EVENT, "StreamWaitEvent");
            expect(api, POINTER_GET_ATTRIBUTES, "PointerGetAttributes");
            expect(api, MEM_GET_ADDRESS_RANGE, "MemGetAddressRange_v2");
            expect(api, MEM_RETAIN_ALLOCATION_HANDLE, "MemRetainAllocationHandle");
            expect(api, MEM_GET_ALLOCATION_PROPERTIES, "MemGetAllocationPropertiesFromHandle");
            expect(api, MALLOC_HOST, "MallocHost");
            expect(api, FREE_HOST, "FreeHost");
            expect(api, COMM_SHRINK, "CommShrink");
            expect(api, HOST_GET_DEVICE_POINTER, "HostGetDevicePointer");
            expect(api, COMM_REVOKE, "CommRevoke");
            expect(api, GATHER, OpKind.GATHER.cName());
            expect(api, SCATTER, OpKind.SCATTER.cName());
        }

        private static void expect(NativeApi api, int slot, String name) {
            if (!api.slotName(slot).equals(name)) {
                throw new IllegalStateException(
                        "shim slot " + slot + " is " + api.slotName(slot) + ", expected " + name);
            }
        }
    }
}
