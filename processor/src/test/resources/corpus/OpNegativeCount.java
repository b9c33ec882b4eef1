// expect: [R13 TYPES] "@Broadcast in `step()` has count = -1"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpNegativeCount {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Broadcast(send = "a", recv = "b", count = -1) void step();  // <- here
}
