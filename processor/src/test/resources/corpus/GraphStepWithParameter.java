// expect: [DSL parameter] "parameter `float scale` of step `step`: step parameters are counts and offsets, `long` or `int`"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.GRAPH)
interface GraphStepWithParameter {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step(float scale);  // <- here
}
