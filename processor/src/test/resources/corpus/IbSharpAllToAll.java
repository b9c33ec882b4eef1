// expect: [R8 IB-SHARP] "@AllToAll in `step()` is not served by IB SHARP (only @AllReduce, @ReduceScatter and @AllGather are)"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.IB_SHARP)
interface IbSharpAllToAll {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllToAll(send = "a", recv = "b", count = 8) void step();  // <- here
}
