// expect: [R13 TYPES]
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferCountOverflow {
    @Buffer(type = DataType.INT64, count = Long.MAX_VALUE / 4) DeviceBuffer a();  // <- here
}
