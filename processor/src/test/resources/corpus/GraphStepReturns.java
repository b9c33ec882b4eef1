// expect: [DSL graph-step] "GRAPH step `step()` returns `boolean`"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.GRAPH)
interface GraphStepReturns {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) boolean step();  // <- here
}
