// expect: [DSL twins] "both `count` and `countExpr` are given"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface ExprBothTwins {
    @Dim long elements();
    @Buffer(type = DataType.FLOAT32, count = 64, countExpr = "elements") DeviceBuffer a();  // <- here
    @AllReduce(send = "a", recv = "a", count = 8) void step();
}
