// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator corpus.CustomIsThePipeline must be a concrete class (it is instantiated"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomIsThePipeline {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = CustomIsThePipeline.class) DeviceBuffer a();  // <- here
    
}
