// expect: [DSL duplicate] "`a` is declared twice (a() and a(int))"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface DuplicateNames {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(count = 8) DeviceBuffer a(int i);  // <- here
}
