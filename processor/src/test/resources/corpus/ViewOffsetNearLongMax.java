// expect: [R7 ARENA] "view `v` reaches past the end of `a`: bytes [9223372036854775800, 9223372036854775816), but it holds 64 bytes"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL)
interface ViewOffsetNearLongMax {
    @Buffer(count = 64) DeviceBuffer a();
    @View(of = "a", offsetBytes = 9223372036854775800L, type = DataType.FLOAT32, count = 4) DeviceBuffer v();  // <- here
}
