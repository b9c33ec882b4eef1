// expect: [R11 ALLOCATOR] "buffer `a`: customAllocator dev.collectives.annotation.QualifiedAllocator must be a concrete class"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomAnnotationType {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = QualifiedAllocator.class) DeviceBuffer a();  // <- here
    
}
