// expect: [R11 ALLOCATOR] "buffer `a`: allocator = Allocator.CUSTOM needs customAllocator = YourAllocator.class"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomWithoutClass {
    @Buffer(count = 8, allocator = Allocator.CUSTOM) DeviceBuffer a();  // <- here
}
