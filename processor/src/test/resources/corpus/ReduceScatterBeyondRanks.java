// expect: [R7 ARENA] "the send of @ReduceScatter #1 in step() reaches past `a`: elements [0, 128), but it holds 64"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface ReduceScatterBeyondRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @ReduceScatter(send = "a", recv = "b", recvCount = 32) void step();  // <- here
}
