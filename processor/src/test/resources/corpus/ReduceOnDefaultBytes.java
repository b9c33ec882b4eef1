// expect: [R13 TYPES]
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ReduceOnDefaultBytes {
    @Buffer(count = 64) DeviceBuffer a();
    @Buffer(count = 64) DeviceBuffer b();
    @Reduce(send = "a", recv = "b", count = 8, root = 0) void step();  // <- here
}
