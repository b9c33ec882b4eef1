// expect: [DSL step] "step `step()` has no ops"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface GroupedOnly {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Grouped void step();  // <- here
}
