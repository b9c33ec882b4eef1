// expect: [R7 ARENA]
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewNegativeOffset {
    @Buffer(count = 64) DeviceBuffer a();
    @View(of = "a", offsetBytes = -8, type = DataType.UINT8, count = 2) DeviceBuffer v();  // <- here
}
