// expect: [DSL step] "@Recv in `step()`: rank 1 receives 8 x INT32 from rank 0, which sends 8 x FLOAT32 in this step with"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 2)
interface PairTypesDiffer {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.INT32, count = 64) DeviceBuffer b();
    @Send(buffer = "a", count = 8, peer = Peer.NEXT)
    @Recv(buffer = "b", count = 8, peer = Peer.PREVIOUS)  // <- here
    void step();
}
