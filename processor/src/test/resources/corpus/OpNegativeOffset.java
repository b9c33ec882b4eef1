// expect: [R7 ARENA] "the send of @AllReduce #1 in step(): offset -1 into `a` is negative"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpNegativeOffset {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", sendOffset = -1, recv = "b", count = 8) void step();  // <- here
}
