// expect: [DSL step] "@Scatter root = 4 is not a rank of the declared 4 ranks"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface ScatterRootBeyondRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Scatter(send = "a", recv = "b", recvCount = 8, root = 4) void step();  // <- here
}
