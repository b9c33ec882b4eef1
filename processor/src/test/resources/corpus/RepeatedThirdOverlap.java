// expect: [R7 ARENA] "@AllReduce #3 in step(): send bytes [0, 32) and recv bytes [16, 48) overlap without coinciding"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface RepeatedThirdOverlap {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8)
    @AllReduce(send = "a", recv = "b", count = 4)
    @AllReduce(send = "a", recv = "a", recvOffset = 4, count = 8)  // <- here
    void step();
}
