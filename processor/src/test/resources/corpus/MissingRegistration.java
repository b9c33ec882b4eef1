// expect: registration
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline  // <- here
interface MissingRegistration {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
}
