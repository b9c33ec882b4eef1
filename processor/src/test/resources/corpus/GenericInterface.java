// expect: [DSL pipeline] "pipeline `GenericInterface` is generic"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)  // <- here
interface GenericInterface<T> {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
}
