// expect: [R11 ALLOCATOR] "buffer `a`: corpus.CustomRecordNotQualified.Mine is not annotated @QualifiedAllocator(handleTypes ="
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomRecordNotQualified {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    record Mine() implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }
}
