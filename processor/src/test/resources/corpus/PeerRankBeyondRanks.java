// expect: [DSL step] "@Recv with peer = Peer.ABSOLUTE needs peerRank = k, a rank of the declared 4 ranks"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, ranks = 4)
interface PeerRankBeyondRanks {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Recv(buffer = "a", count = 8, peer = Peer.ABSOLUTE, peerRank = 8) void step();  // <- here
}
