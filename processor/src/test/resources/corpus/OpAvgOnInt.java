// expect: [R13 TYPES] "@AllReduce in `step()` uses ReduceOp.AVG on UINT8"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpAvgOnInt {
    @Buffer(type = DataType.UINT8, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.UINT8, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8, op = ReduceOp.AVG) void step();  // <- here
}
