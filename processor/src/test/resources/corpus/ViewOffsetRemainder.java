// expect: [R13 TYPES] "@View half(): offsetBytesExpr = " "4097 / 2 divides 4097 by 2, which leaves a remainder of 1" "or write floorDiv(4097, 2) to round down"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewOffsetRemainder {
    @Buffer(count = 8192) DeviceBuffer block();
    @View(of = "block", type = DataType.UINT8, count = 16,
            offsetBytesExpr = "4097 / 2")  // <- here
    DeviceBuffer half();
}
