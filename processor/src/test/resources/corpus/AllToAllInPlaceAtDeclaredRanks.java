// expect: [R7 ARENA] "@AllToAll #1 in step(): send bytes [0, 64) and recv bytes [0, 64) overlap, and this op cannot run"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface AllToAllInPlaceAtDeclaredRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllToAll(send = "a", recv = "a", count = 4) void step();  // <- here
}
