// expect: [DSL dim] "@Dim `elements()` returns `java.lang.String`"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface DimReturnsString {
    @Dim String elements();  // <- here
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllReduce(send = "a", recv = "a", count = 8) void step();
}
