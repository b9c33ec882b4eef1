package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.bootstrap.Setting;
import dev.collectives.runtime.internal.SettingValues;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How one vendor spells its API: MCCL ({@code mccl*}, {@code musa*}, {@code mu*}) or NCCL ({@code nccl*},
 * {@code cuda*}, {@code cu*}), which files hold it, and where a user can point at other files.
 */
public enum Dialect {
    /** Moore Threads: MCCL, the MUSA runtime and driver. */
    MCCL(
            "mccl",
            new String[] {"mccl", "musa", "mu"},
            List.of(
                    List.of("libmccl.so", "libmccl.so.2"),
                    List.of("libmusart.so", "libmusart.so.4", "libmusart.so.3"),
                    List.of("libmusa.so", "libmusa.so.1")),
            "MCCL_LEGACY_MUSA_REGISTER"),
    /** NVIDIA: NCCL, the CUDA runtime and driver. */
    NCCL(
            "nccl",
            new String[] {"nccl", "cuda", "cu"},
            List.of(
                    List.of("libnccl.so.2", "libnccl.so"),
                    List.of("libcudart.so", "libcudart.so.13", "libcudart.so.12"),
                    List.of("libcuda.so.1", "libcuda.so")),
            "NCCL_LEGACY_CUDA_REGISTER");

    /** The library roles, in the order of the shim's CX_CCL, CX_RT, CX_DRV. */
    static final List<String> ROLES = List.of("collective library", "device runtime", "device driver");

    private static final List<String> ROLE_KEYS = List.of("ccl", "runtime", "driver");

    /**
     * The one table of names that differ beyond the prefix: generic name → this dialect's symbol. Everything
     * else is the dialect's prefix followed by the generic name.
     */
    private static final Map<Dialect, Map<String, String>> IRREGULAR_SYMBOLS = Map.of(
            MCCL, Map.of("CommDevice", "mcclCommMuDevice"),
            NCCL, Map.of("CommDevice", "ncclCommCuDevice"));

    /** Enum-value names that differ beyond the prefix (for messages; the values themselves are the same). */
    private static final Map<Dialect, Map<DataType, String>> IRREGULAR_TYPE_NAMES = Map.of(
            MCCL, Map.of(DataType.FP8_E4M3, "mcclFp8E4M3", DataType.FP8_E5M2, "mcclFp8E5M2"),
            NCCL, Map.of(DataType.FP8_E4M3, "ncclFloat8e4m3", DataType.FP8_E5M2, "ncclFloat8e5m2"));

    private final String backendName;
    private final String[] prefixes;
    private final List<List<String>> defaultFiles;
    private final String legacyRegisterVariable;

    Dialect(String backendName, String[] prefixes, List<List<String>> defaultFiles, String legacyRegisterVariable) {
        this.backendName = backendName;
        this.prefixes = prefixes;
        this.defaultFiles = defaultFiles;
        this.legacyRegisterVariable = legacyRegisterVariable;
    }

    /** The backend's name: "mccl" or "nccl". */
    public String backendName() {
        return backendName;
    }

    /**
     * The variable {@code <PREFIX>_RUNTIME_CONNECT}, which the backend leaves alone unless
     * {@link DeviceBackend#CONNECT_AT_INIT_PROPERTY} is true and the user did not set it. The library's default (NCCL
     * 2.28: lazily, as a collective first needs a peer) takes less device memory and matches other programs of a job
     * (CuPy, PyTorch) on their defaults; a lazy connection cannot be captured into a graph, so a GRAPH step's first
     * call with each argument tuple runs eagerly and its second is captured
     * ({@link dev.collectives.runtime.Communicator#peersConnectedAtInit}).
     */
    public String runtimeConnectVariable() {
        return backendName.toUpperCase(Locale.ROOT) + "_RUNTIME_CONNECT";
    }

    /** Whether communicators made here connect all peers at init (see {@link #runtimeConnectVariable}). */
    public boolean connectsAtInit() {
        String user = System.getenv(runtimeConnectVariable());
        return user == null ? connectAtInitAsked() : "0".equals(user.trim());
    }

    static boolean connectAtInitAsked() {
        return SettingValues.ofProcess(Setting.DEVICE_CONNECT_AT_INIT)
                .filter("true"::equals)
                .isPresent();
    }

    /** R9: the variable that allows registering legacy (musaMalloc/cudaMalloc) memory. */
    public String legacyRegisterVariable() {
        return legacyRegisterVariable;
    }

    /** The symbol for a generic name of library {@code role} (0 ccl, 1 runtime, 2 driver). */
    public String symbol(int role, String genericName) {
        String irregular = IRREGULAR_SYMBOLS.get(this).get(genericName);
        return irregular != null && role == 0 ? irregular : prefixes[role] + genericName;
    }

    /** "ncclAllReduce" for "AllReduce". */
    public String ccl(String genericName) {
        return symbol(0, genericName);
    }

    /** The library's name for a data type, e.g. ncclFloat32, mcclFp8E4M3. */
    public String typeName(DataType type) {
        String irregular = IRREGULAR_TYPE_NAMES.get(this).get(type);
        if (irregular != null) {
            return irregular;
        }
        String[] words = type.name().toLowerCase(Locale.ROOT).split("_");
        String name = Character.toUpperCase(words[0].charAt(0)) + words[0].substring(1);
        return prefixes[0] + name;
    }

    /**
     * The system property that overrides the file of a role: {@code collectives.nccl.ccl.library},
     * {@code collectives.nccl.runtime.library}, {@code collectives.nccl.driver.library} (mccl alike).
     */
    public String libraryProperty(int role) {
        return "collectives." + backendName + "." + ROLE_KEYS.get(role) + ".library";
    }

    /** The environment variable that overrides it: {@code COLLECTIVES_NCCL_CCL_LIBRARY} etc. */
    public String libraryVariable(int role) {
        return ("COLLECTIVES_" + backendName + "_" + ROLE_KEYS.get(role) + "_LIBRARY").toUpperCase(Locale.ROOT);
    }

    /** The files tried for a role, in order: the property, the variable, then the default names. */
    List<String> candidates(int role) {
        String property = System.getProperty(libraryProperty(role));
        if (property != null && !property.isBlank()) {
            return List.of(property.trim());
        }
        String variable = System.getenv(libraryVariable(role));
        if (variable != null && !variable.isBlank()) {
            return List.of(variable.trim());
        }
        return defaultFiles.get(role);
    }
}
