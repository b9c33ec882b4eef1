// expect: [R7 ARENA] "the recv of @AllReduce #1 in step() reaches past `b`: elements [60, 68), but it holds 64"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpPastBuffer {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", recvOffset = 60, count = 8) void step();  // <- here
}
