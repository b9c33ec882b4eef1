// expect: [DSL unknown-buffer] "names no accessor of ViewOfUnknown"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewOfUnknown {
    @Buffer(count = 64) DeviceBuffer arena();
    @View(of = "arnea", type = DataType.UINT8, count = 8) DeviceBuffer v();  // <- here
}
