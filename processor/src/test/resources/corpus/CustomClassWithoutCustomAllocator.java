// expect: [R11 ALLOCATOR] "buffer `a` names customAllocator = dev.collectives.runtime.QualifiedVmmAllocator.class but"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomClassWithoutCustomAllocator {
    @Buffer(count = 8, customAllocator = QualifiedVmmAllocator.class) DeviceBuffer a();  // <- here
}
