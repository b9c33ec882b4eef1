// expect: [R13 TYPES] "@ReduceScatter in `step()` reduces `a` as UINT8, the type @Buffer has when none is given: each byte"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface ReduceScatterOnDefaultBytes {
    @Buffer(count = 64) DeviceBuffer a();
    @Buffer(count = 64) DeviceBuffer b();
    @ReduceScatter(send = "a", recv = "b", recvCount = 8) void step();  // <- here
}
