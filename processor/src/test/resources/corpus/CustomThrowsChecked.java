// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomThrowsChecked.Mine has a no-argument constructor that"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomThrowsChecked {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) final class Mine implements DeviceAllocator { public Mine() throws java.io.IOException { } public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }
}
