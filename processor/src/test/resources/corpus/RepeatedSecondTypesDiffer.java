// expect: [R13 TYPES] "@AllReduce in `step()` sends FLOAT32 from `a` but receives into `d`, which is FLOAT64"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface RepeatedSecondTypesDiffer {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT64, count = 64) DeviceBuffer d();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8)
    @AllReduce(send = "a", recv = "d", count = 8)  // <- here
    void step();
}
