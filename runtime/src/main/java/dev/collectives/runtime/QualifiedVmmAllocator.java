package dev.collectives.runtime;

import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.QualifiedAllocator;
import java.util.Set;

/**
 * The project's own qualified allocator ({@code Allocator.VMM}): POSIX file descriptor handles, plus FABRIC
 * where the device supports it; physical and reserved sizes rounded up to the recommended granularity, and the
 * head aligned to it (R11).
 */
@QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
public final class QualifiedVmmAllocator implements DeviceAllocator {
    @Override
    public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
        Set<HandleType> handles = vmm.qualifiedHandleTypes();
        long granularity = vmm.granularity(handles);
        long rounded = VirtualMemory.roundUp(bytes, granularity);
        return vmm.map(rounded, rounded, granularity, handles);
    }
}
