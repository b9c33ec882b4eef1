// expect: [DSL accessor] "accessor `a()` returns `java.util.List<dev.collectives.runtime.DeviceBuffer>`"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface AccessorReturnsList {
    @Buffer(count = 8) java.util.List<DeviceBuffer> a();  // <- here
}
