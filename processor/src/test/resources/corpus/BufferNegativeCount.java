// expect: [R13 TYPES] "@Buffer `a` has count = -4"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferNegativeCount {
    @Buffer(type = DataType.FLOAT32, count = -4) DeviceBuffer a();  // <- here
}
