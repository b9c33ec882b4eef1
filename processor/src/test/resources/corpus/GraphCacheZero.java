// expect: [DSL capture] "graphCache = 0: a GRAPH step with parameters keeps at least 1 graph"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.GRAPH, graphCache = 0)  // <- here
interface GraphCacheZero {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @AllReduce(send = "a", recv = "a", countExpr = "n") void step(long n);
}
