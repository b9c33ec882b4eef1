// expect: [R13 TYPES] "@AllReduce in `step()` sends FLOAT32 from `a` but receives into `b`, which is FLOAT64"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpTypesDiffer {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT64, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();  // <- here
}
