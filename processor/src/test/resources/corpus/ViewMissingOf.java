// expect: of
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewMissingOf {
    @Buffer(count = 64) DeviceBuffer a();
    @View(type = DataType.UINT8, count = 2) DeviceBuffer v();  // <- here
}
