// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomAbstract.Mine must be a concrete class (it is instantiated"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomAbstract {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC}) abstract class Mine implements DeviceAllocator { }
}
