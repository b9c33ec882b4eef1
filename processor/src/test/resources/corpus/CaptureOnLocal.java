// expect: [DSL capture] "@Capture on `step`: only steps with parameters of a GRAPH pipeline are captured per argument tuple"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface CaptureOnLocal {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Capture(param = "n", values = {8})  // <- here
    @AllReduce(send = "a", recv = "a", countExpr = "n") void step(long n);
}
