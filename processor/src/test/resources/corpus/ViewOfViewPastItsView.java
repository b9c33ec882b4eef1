// expect: [R7 ARENA] "view `w` reaches past the end of `v`: bytes [16, 48), but it holds 32 bytes"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.NONE)
interface ViewOfViewPastItsView {
    @External(type = DataType.FLOAT32, count = 64) DeviceBuffer x();
    @View(of = "x", offsetBytes = 0, type = DataType.FLOAT32, count = 8) DeviceBuffer v();
    @View(of = "v", offsetBytes = 16, type = DataType.FLOAT32, count = 8) DeviceBuffer w();  // <- here
}
