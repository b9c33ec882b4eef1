// expect: [DSL step] "@Send in `out()`: rank 0 sends to rank 1, which receives nothing more from rank 0 in this step with"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 2)
interface PairsAcrossSteps {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Send(buffer = "a", count = 8, peer = Peer.NEXT) void out();  // <- here
    @Recv(buffer = "b", count = 8, peer = Peer.PREVIOUS) void in();
}
