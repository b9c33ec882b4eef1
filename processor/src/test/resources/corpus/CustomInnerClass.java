// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.Holder.Mine is an inner class"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomInnerClass {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Holder.Mine.class) DeviceBuffer a();  // <- here
}

class Holder {
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) final class Mine implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }
}
