package dev.collectives.examples.pipelines;

import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.QualifiedAllocator;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.VirtualMemory;
import java.util.Set;

/**
 * A user's own qualified VMM allocator (R11), as the "memory allocator" section of the MCCL user-buffer-registration
 * guide describes: it exports POSIX file descriptor handles, and FABRIC handles where the device has them; its physical
 * size is a multiple of the recommended granularity; its head is aligned to that granularity. It reserves twice the
 * address range it backs, so that an allocation could later grow in place by mapping more memory behind it; the
 * reservation too is a multiple of the granularity.
 */
@QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
public final class HeadroomVmmAllocator implements DeviceAllocator {
    /** Reserved address range per byte of physical memory. */
    public static final int HEADROOM = 2;

    @Override
    public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
        Set<HandleType> handles = vmm.qualifiedHandleTypes();
        long granularity = vmm.granularity(handles);
        long physical = VirtualMemory.roundUp(bytes, granularity);
        return vmm.map(physical, Math.multiplyExact(physical, HEADROOM), granularity, handles);
    }
}
