// expect: count
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferMissingCount {
    @Buffer(type = DataType.FLOAT32) DeviceBuffer a();  // <- here
}
