// expect: [R13 TYPES] "view `v` (16 x FLOAT64 = 128 bytes at byte 0) reaches past external `x`, declared as 16 x FLOAT32"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewWiderTypePastExternal {
    @External(type = DataType.FLOAT32, count = 16) DeviceBuffer x();
    @View(of = "x", offsetBytes = 0, type = DataType.FLOAT64, count = 16) DeviceBuffer v();  // <- here
}
