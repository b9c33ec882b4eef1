// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator dev.collectives.runtime.DeviceAllocator must be a concrete class (it is"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomInterface {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = DeviceAllocator.class) DeviceBuffer a();  // <- here
}
