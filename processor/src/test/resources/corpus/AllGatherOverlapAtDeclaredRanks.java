// expect: [R7 ARENA] "@AllGather #1 in step(): send bytes [128, 160) and recv bytes [0, 256) overlap, and this op cannot"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 8)
interface AllGatherOverlapAtDeclaredRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllGather(send = "a", sendOffset = 32, recv = "a", sendCount = 8) void step();  // <- here
}
