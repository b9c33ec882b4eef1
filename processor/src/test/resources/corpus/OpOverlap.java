// expect: [R7 ARENA] "@AllReduce #1 in step(): send bytes [0, 32) and recv bytes [16, 48) overlap without coinciding"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpOverlap {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllReduce(send = "a", recv = "a", recvOffset = 4, count = 8) void step();  // <- here
}
