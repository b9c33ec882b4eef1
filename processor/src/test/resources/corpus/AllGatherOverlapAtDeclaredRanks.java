// expect: [R7 ARENA]
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
