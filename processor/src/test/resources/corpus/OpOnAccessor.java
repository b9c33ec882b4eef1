// expect: [DSL accessor] "accessor `b()` carries @AllReduce"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface OpOnAccessor {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllReduce(send = "a", recv = "a", count = 8) @Buffer(count = 8) DeviceBuffer b();  // <- here
}
