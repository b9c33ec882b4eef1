// expect: [R13 TYPES] "@External `a` has count = 0"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ExternalZeroCount {
    @External(type = DataType.UINT8, count = 0) DeviceBuffer a();  // <- here
}
