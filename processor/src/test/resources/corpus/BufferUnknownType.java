// expect: FLOAT128 | an enum annotation value must be an enum constant
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferUnknownType {
    @Buffer(type = DataType.FLOAT128, count = 8) DeviceBuffer a();  // <- here
}
