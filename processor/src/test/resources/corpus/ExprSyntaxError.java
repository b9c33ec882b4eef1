// expect: [DSL expression] "the expression ends where a number, a name or `(` should follow at column 11"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface ExprSyntaxError {
    @Dim long elements();
    @Buffer(type = DataType.FLOAT32, countExpr = "elements *") DeviceBuffer a();  // <- here
    @AllReduce(send = "a", recv = "a", count = 8) void step();
}
