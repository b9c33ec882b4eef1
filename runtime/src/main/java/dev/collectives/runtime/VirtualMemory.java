package dev.collectives.runtime;

import dev.collectives.annotation.HandleType;
import java.util.EnumSet;
import java.util.Set;

/** A backend's VMM API ({@code muMem*} / {@code cuMem*}), the building block of qualified allocators (R11). */
public interface VirtualMemory {
    /** {@code muMemGetAllocationGranularity(..., MU_MEM_ALLOC_GRANULARITY_RECOMMENDED)} for these handle types. */
    long granularity(Set<HandleType> handleTypes);

    /** Whether the device can export this handle type (FABRIC is not everywhere). */
    boolean supports(HandleType handleType);

    /**
     * {@code muMemCreate(physicalSize, handleTypes)}, {@code muMemAddressReserve(reservedSize, alignment)},
     * {@code muMemMap}, {@code muMemSetAccess}: memory of {@code physicalSize} usable bytes. Closing it unmaps,
     * releases and frees the reservation. Sizes are taken as given, so that R11 can be checked on them.
     */
    DeviceMemory map(long physicalSize, long reservedSize, long alignment, Set<HandleType> handleTypes);

    /** The handle types a qualified allocation exports (R11): POSIX file descriptor, plus FABRIC where supported. */
    default Set<HandleType> qualifiedHandleTypes() {
        Set<HandleType> handles = EnumSet.of(HandleType.POSIX_FILE_DESCRIPTOR);
        if (supports(HandleType.FABRIC)) {
            handles.add(HandleType.FABRIC);
        }
        return handles;
    }

    /** {@code bytes} (at least 1) rounded up to a multiple of {@code granularity}, as R11 asks of sizes. */
    static long roundUp(long bytes, long granularity) {
        return Math.addExact(Math.max(bytes, 1), granularity - 1) / granularity * granularity;
    }
}
