package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

class NestedPipeline {
    @CollectivePipeline(registration = Registration.NONE, ranks = 2)
    interface Inner {
        @Buffer(type = DataType.INT32, count = 64) DeviceBuffer a();
        @Buffer(type = DataType.INT32, count = 64) DeviceBuffer b();
        @Send(buffer = "a", count = 8, peer = Peer.ABSOLUTE, peerRank = 1)
        @Send(buffer = "a", count = 8, offset = 8, peer = Peer.ABSOLUTE, peerRank = 0)
        @Recv(buffer = "b", count = 8, peer = Peer.ABSOLUTE, peerRank = 0)
        @Recv(buffer = "b", count = 8, offset = 8, peer = Peer.ABSOLUTE, peerRank = 1)
        void swap();
    }
}
