// expect: [R7 ARENA] "the recv of @AllGather #1 in step() reaches past `b`: elements [0, 256), but it holds 64"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 8)
interface AllGatherBeyondRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllGather(send = "a", recv = "b", sendCount = 32) void step();  // <- here
}
