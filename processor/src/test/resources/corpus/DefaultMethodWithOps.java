// expect: [DSL step] "`step()` has a body"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface DefaultMethodWithOps {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllReduce(send = "a", recv = "a", count = 8) default void step() { }  // <- here
}
