// expect: missing a default value for the element 'type'
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewWithoutType {
    @Buffer(count = 64) DeviceBuffer a();
    @View(of = "a", count = 8) DeviceBuffer v();  // <- here
}
