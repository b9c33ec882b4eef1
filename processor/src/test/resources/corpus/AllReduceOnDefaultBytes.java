// expect: [R13 TYPES] "@AllReduce in `step()` reduces `a` as UINT8, the type @Buffer has when none is given: each byte is"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface AllReduceOnDefaultBytes {
    @Buffer(count = 64) DeviceBuffer a();
    @Buffer(count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();  // <- here
}
