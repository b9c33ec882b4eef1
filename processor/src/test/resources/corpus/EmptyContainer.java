// expect: [DSL step] "`void step()` has no op annotation"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface EmptyContainer {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllReduce.List({}) void step();  // <- here
}
