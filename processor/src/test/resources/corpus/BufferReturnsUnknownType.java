// expect: Nonexistent
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface BufferReturnsUnknownType {
    @Buffer(count = 8) Nonexistent a();  // <- here
}
