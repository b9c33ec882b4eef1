// expect: [R13 TYPES] "reduce(): @ReduceScatter #1: recvCountExpr = " "1000003 / ranks divides 1000003 by 4, which leaves a remainder of 3" "write floorDiv(1000003, ranks) to round down"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface ReduceScatterRemainderAtDeclaredRanks {
    @Buffer(type = DataType.FLOAT32, count = 1000003) DeviceBuffer grads();
    @Buffer(type = DataType.FLOAT32, count = 250001) DeviceBuffer shard();
    @ReduceScatter(send = "grads", recv = "shard",
            recvCountExpr = "1000003 / ranks")  // <- here
    void reduce();
}
