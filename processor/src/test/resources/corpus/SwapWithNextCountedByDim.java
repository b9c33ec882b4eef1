// expect: [DSL step] "@Send in `step()`: rank 0 sends to rank 1, which receives nothing more from rank 0 in this step"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 3)
interface SwapWithNextCountedByDim {
    @Dim long elements();
    @Buffer(type = DataType.FLOAT32, countExpr = "elements") DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, countExpr = "elements") DeviceBuffer b();
    @Send(buffer = "a", countExpr = "elements", peer = Peer.NEXT)  // <- here
    @Recv(buffer = "b", countExpr = "elements", peer = Peer.NEXT)
    void step();
}
