// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomGenericInnerOfGeneric.Outer.Mine is an inner class"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

/** An inner class of a generic class needs an enclosing instance (and its type arguments). */
@CollectivePipeline(registration = Registration.LOCAL)
interface CustomGenericInnerOfGeneric {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Outer.Mine.class) DeviceBuffer a();  // <- here
    class Outer<T> {
        @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) final class Mine<U extends T> implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return null; } }
    }
}
