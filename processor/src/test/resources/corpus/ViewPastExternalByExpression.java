// expect: [R13 TYPES] "@View v() lies within the declared size of external `x`: (elements + 1) * 4 <= elements * 4 holds"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.NONE)
interface ViewPastExternalByExpression {
    @Dim long elements();
    @External(type = DataType.FLOAT32, countExpr = "elements") DeviceBuffer x();
    @View(of = "x", type = DataType.FLOAT32, countExpr = "elements + 1") DeviceBuffer v();  // <- here
}
