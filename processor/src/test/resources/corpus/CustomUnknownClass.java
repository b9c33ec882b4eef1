// expect: NoSuchAllocator
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface CustomUnknownClass {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = NoSuchAllocator.class) DeviceBuffer a();  // <- here
}
