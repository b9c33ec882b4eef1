// expect: [DSL step] "@Broadcast root = -1 is not a rank of any communicator"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface RootNegative {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Broadcast(send = "a", recv = "b", count = 8, root = -1) void step();  // <- here
}
