// expect: [DSL unknown-buffer]
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewLoop {
    @View(of = "w", count = 8) DeviceBuffer v();
    @View(of = "v", count = 8) DeviceBuffer w();
}
