// expect: [R7 ARENA] "@AllGather #1 in step(): send bytes [0, 32) and recv bytes [0, 8 * ranks * 4) overlap, and this op"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface AllGatherInPlace {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllGather(send = "a", recv = "a", sendCount = 8) void step();  // <- here
}
