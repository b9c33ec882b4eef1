// expect: [R11 ALLOCATOR] "buffer `a`: corpus.CustomEmptyHandles.Mine declares handle types [] without POSIX_FILE_DESCRIPTOR,"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomEmptyHandles {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = {}) final class Mine implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return new QualifiedVmmAllocator().allocate(vmm, bytes); } }
}
