package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.spi.HostStaging;
import java.util.Optional;

/**
 * The per-call check's staging on a device: pinned host memory mapped into the device
 * ({@link NativeMemory#mappedHost}), where the check gathers its digests with no copies. The library takes such
 * memory as a collective's buffers as long as it is not registered with it, and a staging is never registered.
 */
final class MappedHostStaging {
    private MappedHostStaging() {}

    /** Staging of {@code bytes} on {@code comm}'s device; empty where the library lacks the calls. */
    static Optional<HostStaging> allocate(DeviceRank comm, long bytes) {
        NativeLibrary library = comm.library();
        if (!library.has(NativeLibrary.Slots.MALLOC_HOST)
                || !library.has(NativeLibrary.Slots.FREE_HOST)
                || !library.has(NativeLibrary.Slots.HOST_GET_DEVICE_POINTER)) {
            return Optional.empty();
        }
        NativeMemory memory = NativeMemory.mappedHost(comm, bytes);
        return Optional.of(new HostStaging(DeviceBuffer.root(memory, DataType.UINT8, bytes), memory.hostBuffer()));
    }
}
