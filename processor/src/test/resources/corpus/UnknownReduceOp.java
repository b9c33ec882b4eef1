// expect: MEDIAN | an enum annotation value must be an enum constant
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface UnknownReduceOp {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8, op = ReduceOp.MEDIAN) void step();  // <- here
}
