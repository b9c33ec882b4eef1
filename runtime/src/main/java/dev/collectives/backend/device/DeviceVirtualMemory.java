package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.HandleType;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.VirtualMemory;
import java.util.Set;

/** The driver's VMM API on one rank's device; the memory it maps is labelled with {@code allocator}. */
final class DeviceVirtualMemory implements VirtualMemory {
    private final DeviceRank comm;
    private final DeviceProbe probe;
    private final Allocator allocator;

    DeviceVirtualMemory(DeviceRank comm, DeviceProbe probe, Allocator allocator) {
        this.comm = comm;
        this.probe = probe;
        this.allocator = allocator;
    }

    @Override
    public long granularity(Set<HandleType> handleTypes) {
        int flags = 0;
        for (HandleType t : handleTypes) {
            flags |= t.flag();
        }
        NativeLibrary n = comm.library();
        long[] out = new long[1];
        n.checkDriver(
                n.api.vmmGranularity(n.lib, comm.device(), flags, out), comm.rank(), "MemGetAllocationGranularity");
        return out[0];
    }

    @Override
    public boolean supports(HandleType handleType) {
        return handleType == HandleType.POSIX_FILE_DESCRIPTOR
                || probe.capabilities().fabricHandles();
    }

    @Override
    public DeviceMemory map(long physicalSize, long reservedSize, long alignment, Set<HandleType> handleTypes) {
        return NativeMemory.vmm(comm, allocator, physicalSize, reservedSize, alignment, handleTypes);
    }
}
