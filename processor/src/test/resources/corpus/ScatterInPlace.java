// expect: [R7 ARENA] "@Scatter #1 in step(): send bytes [0, 8 * ranks * 4) and recv bytes [0, 32) overlap, and this op"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface ScatterInPlace {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Scatter(send = "a", recv = "a", recvCount = 8) void step();  // <- here
}
