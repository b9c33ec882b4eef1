// expect: [DSL unknown-buffer] "names no accessor of OpSendNamesStep"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpSendNamesStep {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void first();
    @AllReduce(send = "first", recv = "b", count = 8) void second();  // <- here
}
