// expect: [R13 TYPES] "@Reduce in `step()` reduces `a` as UINT8, the type @Buffer has when none is given: each byte is"
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
