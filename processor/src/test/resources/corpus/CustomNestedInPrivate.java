// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomNestedInPrivate.Mine is private"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

class CustomNestedInPrivate {
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    private static final class Mine implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }

    @CollectivePipeline(registration = Registration.LOCAL)
    interface Inner {
        @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    }
}
