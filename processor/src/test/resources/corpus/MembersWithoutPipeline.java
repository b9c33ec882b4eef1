// expect: [DSL pipeline] "`MembersWithoutPipeline` is not annotated @CollectivePipeline, so no CollectiveMembersWithoutPipeline is generated for it, yet `a()` carries @Buffer; annotate"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

interface MembersWithoutPipeline {  // <- here
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllReduce(send = "a", recv = "a", count = 64) void step();
}
