// expect: missing a default value for the element 'type'
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ExternalWithoutType {
    @External(count = 8) DeviceBuffer x();  // <- here
}
