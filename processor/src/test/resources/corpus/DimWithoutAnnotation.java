// expect: [DSL dim] "unknown name `elements` at column 1; `long elements()` has no annotation: did you mean `@Dim long elements()`, a size given at bind?"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface DimWithoutAnnotation {
    long elements();
    @Buffer(type = DataType.FLOAT32, count = 4096) DeviceBuffer grads();
    @AllReduce(send = "grads", recv = "grads", countExpr = "elements / ranks") void step();  // <- here
}
