// expect: [DSL step] "@Send in `step()`: rank 0 sends to rank 1, which receives nothing more from rank 0 in this step"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 2)
interface SendWithoutRecv {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Send(buffer = "a", count = 8, peer = Peer.NEXT) void step();  // <- here
}
