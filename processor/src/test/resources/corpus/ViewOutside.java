// expect: [R7 ARENA] "view `v` reaches past the end of `a`: bytes [60, 68), but it holds 64 bytes"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewOutside {
    @Buffer(count = 64) DeviceBuffer a();
    @View(of = "a", offsetBytes = 60, type = DataType.FLOAT32, count = 2) DeviceBuffer v();  // <- here
}
