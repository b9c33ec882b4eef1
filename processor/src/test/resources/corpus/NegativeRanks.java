// expect: [DSL pipeline] "ranks = -2 is negative"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = -2)  // <- here
interface NegativeRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
}
