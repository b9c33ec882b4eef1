// expect: [R13 TYPES] "@Gather in `step()` sends FLOAT32 from `a` but receives into `b`, which is INT32"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface GatherTypesDiffer {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.INT32, count = 64) DeviceBuffer b();
    @Gather(send = "a", recv = "b", sendCount = 8, root = 0) void step();  // <- here
}
