// expect: [R7 ARENA] "the recv of @Gather #1 in step() reaches past `b`: elements [0, 256), but it holds 64"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 8)
interface GatherBeyondRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Gather(send = "a", recv = "b", sendCount = 32, root = 3) void step();  // <- here
}
