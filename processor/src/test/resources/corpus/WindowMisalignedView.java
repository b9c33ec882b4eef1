// expect: [R12 WINDOW] "window `w` starts at byte 512 of its allocation"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.NONE)
interface WindowMisalignedView {
    @Buffer(count = 16384) DeviceBuffer a();
    @Window @View(of = "a", offsetBytes = 512, type = DataType.UINT8, count = 4096) DeviceBuffer w();  // <- here
}
