// expect: [DSL step] "@Send peerRank = 3 is only read with peer = Peer.ABSOLUTE"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface PeerRankWithNext {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Send(buffer = "a", count = 8, peer = Peer.NEXT, peerRank = 3) void step();  // <- here
}
