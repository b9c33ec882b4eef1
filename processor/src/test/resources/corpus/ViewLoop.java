// expect: [DSL unknown-buffer] "view `v` lies in `w`, but following `of` from there loops back without reaching a @Buffer or"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewLoop {
    @View(of = "w", type = DataType.UINT8, count = 8) DeviceBuffer v();  // <- here
    @View(of = "v", type = DataType.UINT8, count = 8) DeviceBuffer w();
}
