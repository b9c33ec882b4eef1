// expect: [R13 TYPES] "view `v` (1 x FLOAT32 = 4 bytes at byte 64) reaches past external `x`, declared as 16 x FLOAT32 (64"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewOffsetPastExternal {
    @External(type = DataType.FLOAT32, count = 16) DeviceBuffer x();
    @View(of = "x", offsetBytes = 64, type = DataType.FLOAT32, count = 1) DeviceBuffer v();  // <- here
}
