// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomGenericBounded.Mine has no accessible no-argument"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

/** Its only constructor takes T...: there is no no-argument constructor to call. */
@CollectivePipeline(registration = Registration.LOCAL)
interface CustomGenericBounded {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) final class Mine<T extends Number> implements DeviceAllocator { @SafeVarargs Mine(T... sizes) { } public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }
}
