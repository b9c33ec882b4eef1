// expect: [R13 TYPES] "@Buffer `a` has count = 0"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferZeroCount {
    @Buffer(count = 0) DeviceBuffer a();  // <- here
}
