package dev.collectives.backend.device;

import dev.collectives.annotation.HandleType;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.VirtualMemory;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What one rank's device and library can do, asked once and kept: the {@link Capabilities} (NVLink SHARP, IB SHARP,
 * registration, windows and their helpers, fabric handles, from the library's version and symbols, the device's
 * attributes and the environment), and the VMM granularity of the handle types a qualified allocator exports.
 */
final class DeviceProbe {
    private static final int ATTRIBUTE_MULTICAST_SUPPORTED = 132;

    private final DeviceRank comm;
    private final boolean collnetRequested;
    private volatile Capabilities capabilities;
    private volatile long granularity;

    DeviceProbe(DeviceRank comm, boolean collnetRequested) {
        this.comm = comm;
        this.collnetRequested = collnetRequested;
    }

    /** Whether the communicator was made with IB SHARP (CollNet) enabled in its config. */
    boolean collnetRequested() {
        return collnetRequested;
    }

    Capabilities capabilities() {
        Capabilities c = capabilities;
        if (c == null) {
            capabilities = c = probe();
        }
        return c;
    }

    private Capabilities probe() {
        NativeLibrary library = comm.library();
        boolean mccl = library.dialect == Dialect.MCCL;
        String prefix = library.dialect.backendName().toUpperCase(Locale.ROOT);
        int[] multicast = new int[1];
        boolean multicastDevice =
                library.api.deviceAttribute(library.lib, comm.device(), ATTRIBUTE_MULTICAST_SUPPORTED, multicast) == 0
                        && multicast[0] != 0;
        boolean sharp = comm.size() > 1 && multicastDevice && !"0".equals(System.getenv(prefix + "_NVLS_ENABLE"));
        boolean collnet = collnetRequested || "1".equals(System.getenv(prefix + "_COLLNET_ENABLE"));
        boolean registration = !mccl || library.version >= 22809;
        boolean windows = library.has(NativeLibrary.Slots.WINDOW_REGISTER)
                && library.has(NativeLibrary.Slots.WINDOW_DEREGISTER)
                && library.version >= (mccl ? 22809 : 22700);
        boolean helpers = library.has(NativeLibrary.Slots.WIN_GET_USER_PTR)
                && library.has(NativeLibrary.Slots.GET_LSA_DEVICE_POINTER);
        boolean fabric = library.api.vmmFabricSupported(library.lib, comm.device()) != 0;
        return new Capabilities(
                library.versionString(),
                sharp,
                collnet && comm.topology().ranksPerNode() == 1,
                registration,
                windows,
                windows && helpers,
                fabric,
                false,
                false);
    }

    /** The VMM granularity of the handle types a qualified allocator exports on this device. */
    long granularity(VirtualMemory vmm) {
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
}
