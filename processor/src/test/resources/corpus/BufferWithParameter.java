// expect: [DSL accessor] "accessor `a` takes parameters"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferWithParameter {
    @Buffer(count = 8) DeviceBuffer a(int i);  // <- here
}
