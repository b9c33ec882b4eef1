// expect: [R13 TYPES]
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewOffsetPastExternal {
    @External(type = DataType.FLOAT32, count = 16) DeviceBuffer x();
    @View(of = "x", offsetBytes = 64, type = DataType.FLOAT32, count = 1) DeviceBuffer v();  // <- here
}
