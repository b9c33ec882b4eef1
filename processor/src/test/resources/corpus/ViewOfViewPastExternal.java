// expect: [R7 ARENA] "view `w` reaches past the end of `v`: bytes [16, 48), but it holds 32 bytes"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewOfViewPastExternal {
    @External(type = DataType.FLOAT32, count = 16) DeviceBuffer x();
    @View(of = "x", offsetBytes = 32, type = DataType.FLOAT32, count = 8) DeviceBuffer v();
    @View(of = "v", offsetBytes = 16, type = DataType.FLOAT32, count = 8) DeviceBuffer w();  // <- here
}
