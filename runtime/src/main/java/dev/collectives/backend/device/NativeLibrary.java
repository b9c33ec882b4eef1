package dev.collectives.backend.device;

import dev.collectives.annotation.OpKind;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Result;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
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

    /** The dialect's symbol of each slot of the shim's table, by slot number. */
    private final String[] slotSymbols;
    /** The shim's number of each of {@link Slots}, by ordinal. */
    private final int[] slotNumbers;
    /** The shim's slot of each op's library function, by {@link OpKind} ordinal. */
    private final int[] opSlots;

    private NativeLibrary(
            Dialect dialect,
            NativeApi api,
            long lib,
            int version,
            String cclFile,
            String[] slotSymbols,
            int[] slotNumbers,
            int[] opSlots) {
        this.dialect = dialect;
        this.api = api;
        this.lib = lib;
        this.version = version;
        this.cclFile = cclFile;
        this.slotSymbols = slotSymbols;
        this.slotNumbers = slotNumbers;
        this.opSlots = opSlots;
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
        } catch (Throwable e) {
            return "the JNI shim (jniNativeShim) did not load on this platform: " + e;
        }
        int[] slotNumbers;
        int[] opSlots;
        try {
            Map<String, Integer> table = Slots.table(api);
            slotNumbers = Slots.numberedBy(table);
            opSlots = Slots.ofOps(table);
        } catch (IllegalStateException e) {
            return e.getMessage();
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
        return new NativeLibrary(dialect, api, lib, version[0], cclFile, symbols, slotNumbers, opSlots);
    }

    /** Whether an optional function exists (window helpers, config init). */
    boolean has(Slots slot) {
        return api.has(lib, slotNumbers[slot.ordinal()]) != 0;
    }

    /** Whether the library has the function of {@code kind} (older ones lack AlltoAll, Gather, Scatter). */
    boolean has(OpKind kind) {
        return api.has(lib, opSlots[kind.ordinal()]) != 0;
    }

    /** Throws, naming the missing symbols, unless the libraries have every one of {@code slots}. */
    void requireSymbols(int rank, String what, Slots... slots) {
        List<String> missing = new ArrayList<>();
        for (Slots slot : slots) {
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

    String symbol(Slots slot) {
        return symbolOfSlot(slotNumbers[slot.ordinal()]);
    }

    /** The dialect's symbol of the shim's slot {@code number}. */
    String symbolOfSlot(int number) {
        return slotSymbols[number];
    }

    /** Throws, naming the library's version, unless it has the function of {@code slot}. */
    void requireAvailable(int rank, Slots slot) {
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

    /**
     * The shim's functions that this backend asks for by name (optional ones, and those messages name): each is
     * found in the shim's own table ({@code CX_SYMBOLS} in {@code collectives_device.h}) by its library and generic
     * name when the library opens, so no slot number is written twice.
     */
    enum Slots {
        COMM_INIT_RANK_CONFIG(0, "CommInitRankConfig"),
        COMM_SPLIT(0, "CommSplit"),
        WINDOW_REGISTER(0, "CommWindowRegister"),
        WINDOW_DEREGISTER(0, "CommWindowDeregister"),
        WIN_GET_USER_PTR(0, "WinGetUserPtr"),
        GET_LSA_DEVICE_POINTER(0, "GetLsaDevicePointer"),
        COMM_SHRINK(0, "CommShrink"),
        COMM_REVOKE(0, "CommRevoke"),
        COMM_GET_UNIQUE_ID(0, "CommGetUniqueId"),
        COMM_GROW(0, "CommGrow"),
        EVENT_CREATE(1, "EventCreateWithFlags"),
        EVENT_QUERY(1, "EventQuery"),
        STREAM_WAIT_EVENT(1, "StreamWaitEvent"),
        MALLOC_HOST(1, "MallocHost"),
        FREE_HOST(1, "FreeHost"),
        HOST_GET_DEVICE_POINTER(1, "HostGetDevicePointer"),
        POINTER_GET_ATTRIBUTES(2, "PointerGetAttributes"),
        MEM_GET_ADDRESS_RANGE(2, "MemGetAddressRange_v2"),
        MEM_RETAIN_ALLOCATION_HANDLE(2, "MemRetainAllocationHandle"),
        MEM_GET_ALLOCATION_PROPERTIES(2, "MemGetAllocationPropertiesFromHandle");

        /** Which of {@link Dialect#ROLES} holds it: 0 the collective library, 1 the runtime, 2 the driver. */
        final int role;
        /** Its name in the shim's table, without the dialect's prefix. */
        final String genericName;

        Slots(int role, String genericName) {
            this.role = role;
            this.genericName = genericName;
        }

        /** The shim's table of {@code api}: each slot's number by its library's role and generic name. */
        static Map<String, Integer> table(NativeApi api) {
            Map<String, Integer> table = new HashMap<>();
            for (int slot = 0; slot < api.slotCount(); slot++) {
                table.put(api.slotLibrary(slot) + ":" + api.slotName(slot), slot);
            }
            return table;
        }

        /**
         * Each slot's number in the shim's {@code table}, by ordinal; throws naming the slots the table lacks, so
         * that a shim and a backend that disagree fail at load, not at the first call.
         */
        static int[] numberedBy(Map<String, Integer> table) {
            return numbered(
                    table,
                    Arrays.stream(values()).mapToInt(s -> s.role).toArray(),
                    Arrays.stream(values()).map(s -> s.genericName).toList());
        }

        /** The number of each op's function ({@link OpKind#cName()}) in the shim's {@code table}, by ordinal. */
        static int[] ofOps(Map<String, Integer> table) {
            OpKind[] kinds = OpKind.values();
            return numbered(
                    table,
                    new int[kinds.length],
                    Arrays.stream(kinds).map(OpKind::cName).toList());
        }

        /** The number of each function {@code names[i]} of the library {@code roles[i]}; throws naming those missing. */
        private static int[] numbered(Map<String, Integer> table, int[] roles, List<String> names) {
            int[] numbers = new int[names.size()];
            List<String> missing = new ArrayList<>();
            for (int i = 0; i < numbers.length; i++) {
                Integer number = table.get(roles[i] + ":" + names.get(i));
                if (number == null) {
                    missing.add(names.get(i) + " (" + Dialect.ROLES.get(roles[i]) + ")");
                } else {
                    numbers[i] = number;
                }
            }
            if (!missing.isEmpty()) {
                throw new IllegalStateException("the native shim's table lacks " + String.join(", ", missing));
            }
            return numbers;
        }
    }
}
