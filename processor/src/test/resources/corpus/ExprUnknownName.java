// expect: did you mean `elements`?
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface ExprUnknownName {
    @Dim long elements();
    @Buffer(type = DataType.FLOAT32, countExpr = "elemnts") DeviceBuffer a();  // <- here
    @AllReduce(send = "a", recv = "a", count = 8) void step();
}
