// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomEnum.Mine must be a concrete class (it is instantiated at"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomEnum {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) enum Mine implements DeviceAllocator { ONLY; public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }
}
