// expect: [R12 WINDOW] "window `win` lies in buffer `block`, declared registered = false, but window registration registers that memory on every rank; remove registered = false, or the @Window"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface WindowOnUnregistered {
    @Buffer(count = 65536, registered = false) DeviceBuffer block();
    @Window  // <- here
    @View(of = "block", offsetBytes = 4096, type = DataType.FLOAT32, count = 1024) DeviceBuffer win();
}
