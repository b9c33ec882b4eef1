// expect: WARP_DRIVE | an enum annotation value must be an enum constant
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.WARP_DRIVE)  // <- here
interface UnknownAcceleration {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
}
