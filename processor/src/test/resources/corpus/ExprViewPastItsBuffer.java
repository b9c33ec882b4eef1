// expect: [R7 ARENA] "view `b` reaches past the end of `a`: bytes [4, 4 + elements * 4), but it holds elements * 4 bytes"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface ExprViewPastItsBuffer {
    @Dim long elements();
    @Buffer(type = DataType.FLOAT32, countExpr = "elements") DeviceBuffer a();
    @View(of = "a", offsetBytesExpr = "4", type = DataType.FLOAT32, countExpr = "elements") DeviceBuffer b();  // <- here
    @AllReduce(send = "b", recv = "b", count = 8) void step();
}
