// expect: [DSL unknown-buffer] "names no accessor of ViewOfStep"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewOfStep {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
    @View(of = "step", type = DataType.FLOAT32, count = 8) DeviceBuffer v();  // <- here
}
