// expect: [R7 ARENA] "view `v` starts at byte 3 of its allocation, not a multiple of the INT32 element size 4"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewMisaligned {
    @Buffer(count = 64) DeviceBuffer a();
    @View(of = "a", offsetBytes = 3, type = DataType.INT32, count = 2) DeviceBuffer v();  // <- here
}
