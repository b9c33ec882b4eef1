// expect: [DSL step] "@Recv in `step()`: rank 0 receives from rank 3, which sends nothing more to rank 0 in this step"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface RecvWithoutSend {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Recv(buffer = "b", count = 8, peer = Peer.PREVIOUS) void step();  // <- here
}
