// expect: [DSL accessor] "`b()` returns DeviceBuffer but has no @Buffer, @View or @External: say where its memory comes from"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface UnannotatedDeviceBuffer {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    DeviceBuffer b();  // <- here
}
