// expect: [DSL duplicate] "`b()` is already declared by @Buffer"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferAndView {
    @Buffer(count = 64) DeviceBuffer a();
    @Buffer(count = 8) @View(of = "a", type = DataType.UINT8, count = 8) DeviceBuffer b();  // <- here
}
