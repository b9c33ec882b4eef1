// expect: [DSL step] "@Send with peer = Peer.ABSOLUTE needs peerRank = k, a rank of the communicator"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface AbsolutePeerWithoutRank {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Send(buffer = "a", count = 8, peer = Peer.ABSOLUTE) void step();  // <- here
}
