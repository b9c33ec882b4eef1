// expect: [R1 MIXED] "@AllReduce in `step()` mixes a registered and an unregistered buffer: send `a` is registered, recv"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface LocalMixedThroughViews {
    @Buffer(count = 1024, registered = false) DeviceBuffer block();
    @View(of = "block", type = DataType.FLOAT32, count = 8) DeviceBuffer v();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllReduce(send = "a", recv = "v", count = 8) void step();  // <- here
}
