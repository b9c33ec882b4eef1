// expect: [DSL accessor] "accessor `a()` returns `int`"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferReturnsInt {
    @Buffer(count = 8) int a();  // <- here
}
