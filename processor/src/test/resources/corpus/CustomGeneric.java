// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomGeneric.Mine has a no-argument constructor that throws the"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

/** new Mine<>() infers E as Exception, which the generated bind() cannot handle. */
@CollectivePipeline(registration = Registration.LOCAL)
interface CustomGeneric {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) final class Mine<E extends Exception> implements DeviceAllocator { Mine() throws E { } public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }
}
