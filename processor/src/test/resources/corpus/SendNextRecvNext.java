// expect: [DSL step] "@Recv in `step()`: rank 0 receives from rank 1, which sends nothing more to rank 0 in this step"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface SendNextRecvNext {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Send(buffer = "a", count = 8, peer = Peer.NEXT)
    @Recv(buffer = "b", count = 8, peer = Peer.NEXT)  // <- here
    void step();
}
