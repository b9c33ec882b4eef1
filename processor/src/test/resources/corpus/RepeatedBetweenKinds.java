// expect: [DSL step] "@Broadcast root = -2 is not a rank of any communicator"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface RepeatedBetweenKinds {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Broadcast(send = "a", recv = "b", count = 8, root = 0)
    @AllReduce(send = "a", recv = "b", count = 8)
    @Broadcast(send = "a", recv = "b", count = 8, root = -2)  // <- here
    void step();
}
