// expect: [R11 ALLOCATOR] "buffer `a`: corpus.CustomWithoutPosix.Mine declares handle types [FABRIC] without"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomWithoutPosix {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = HandleType.FABRIC) final class Mine implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return new QualifiedVmmAllocator().allocate(vmm, bytes); } }
}
