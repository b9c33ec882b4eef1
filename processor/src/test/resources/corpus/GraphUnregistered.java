// expect: [R1 MIXED] "@AllReduce in GRAPH step `step()` uses `a`, which lies in a buffer declared registered = false"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.GRAPH)
interface GraphUnregistered {
    @Buffer(type = DataType.FLOAT32, count = 64, registered = false) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();  // <- here
}
