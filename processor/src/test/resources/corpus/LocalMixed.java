// expect: [R1 MIXED] "@AllReduce in `step()` mixes a registered and an unregistered buffer: send `a` is registered, recv"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface LocalMixed {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64, registered = false) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();  // <- here
}
