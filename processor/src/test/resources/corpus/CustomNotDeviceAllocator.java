// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator java.lang.String does not implement DeviceAllocator"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomNotDeviceAllocator {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = String.class) DeviceBuffer a();  // <- here
}
