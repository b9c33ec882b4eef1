// expect: [R7 ARENA] "the send of @AllToAll #1 in step() reaches past `a`: elements [0, 128), but it holds 64"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 8)
interface AllToAllBeyondDeclaredRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllToAll(send = "a", recv = "b", count = 16) void step();  // <- here
}
