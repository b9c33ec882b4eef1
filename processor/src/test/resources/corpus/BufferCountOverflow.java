// expect: [R13 TYPES] "@Buffer `a`: 2305843009213693951 x INT64 (8 bytes each) overflows a long"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferCountOverflow {
    @Buffer(type = DataType.INT64, count = Long.MAX_VALUE / 4) DeviceBuffer a();  // <- here
}
