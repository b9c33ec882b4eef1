// expect: [R12 WINDOW] "window `a` is on Allocator.LEGACY (cudaMalloc/musaMalloc) memory"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.NONE)
interface WindowOnLegacy {
    @Window @Buffer(count = 4096, allocator = Allocator.LEGACY) DeviceBuffer a();  // <- here
}
