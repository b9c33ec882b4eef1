// expect: [R11 ALLOCATOR] "the class named by customAllocator cannot be found, nor did any annotation processor generate it"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomNeverGenerated {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = GeneratedByNobody.class) DeviceBuffer a();  // <- here
    
}
