// expect: [R7 ARENA] "@ReduceScatter #1 in step(): send bytes [0, 128) and recv bytes [96, 128) overlap, and this op"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface ReduceScatterOverlapAtDeclaredRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @ReduceScatter(send = "a", recv = "a", recvOffset = 24, recvCount = 8) void step();  // <- here
}
