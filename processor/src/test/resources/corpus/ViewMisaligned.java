// expect: [R7 ARENA]
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewMisaligned {
    @Buffer(count = 64) DeviceBuffer a();
    @View(of = "a", offsetBytes = 3, type = DataType.INT32, count = 2) DeviceBuffer v();  // <- here
}
