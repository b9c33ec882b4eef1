// expect: [R11 ALLOCATOR] "buffer `a`: corpus.CustomNotQualified.Mine is not annotated @QualifiedAllocator(handleTypes ="
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomNotQualified {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    final class Mine implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return new QualifiedVmmAllocator().allocate(vmm, bytes); } }
}
