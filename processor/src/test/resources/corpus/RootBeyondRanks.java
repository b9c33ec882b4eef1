// expect: [DSL step] "@Reduce root = 2 is not a rank of the declared 2 ranks"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 2)
interface RootBeyondRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Reduce(send = "a", recv = "b", count = 8, root = 2) void step();  // <- here
}
