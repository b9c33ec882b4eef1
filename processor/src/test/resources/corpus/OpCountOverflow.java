// expect: [R13 TYPES] "@AllReduce in `step()`: send offset 0 plus 9223372036854775807 elements of FLOAT32 overflows a long"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpCountOverflow {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = Long.MAX_VALUE) void step();  // <- here
}
