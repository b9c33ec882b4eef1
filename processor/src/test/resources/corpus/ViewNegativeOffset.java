// expect: [R7 ARENA] "view `v` starts at byte -8, before the head of `a`"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewNegativeOffset {
    @Buffer(count = 64) DeviceBuffer a();
    @View(of = "a", offsetBytes = -8, type = DataType.UINT8, count = 2) DeviceBuffer v();  // <- here
}
