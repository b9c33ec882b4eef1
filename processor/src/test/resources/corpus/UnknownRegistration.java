// expect: SOMETIMES | an enum annotation value must be an enum constant
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.SOMETIMES)  // <- here
interface UnknownRegistration {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
}
