// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomOnlyArgConstructor.Mine has no accessible no-argument"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomOnlyArgConstructor {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) static final class Mine implements DeviceAllocator { Mine(long granularity) { } public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }
}
