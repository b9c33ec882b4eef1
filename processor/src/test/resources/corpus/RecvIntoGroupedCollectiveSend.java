// expect: [R7 ARENA] "the send of @AllReduce #1 in step() and the recv of @Recv #2 in step() use bytes [0, 32) and [0,"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface RecvIntoGroupedCollectiveSend {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Grouped
    @AllReduce(send = "a", recv = "b", count = 8)
    @Recv(buffer = "a", count = 8, peer = Peer.PREVIOUS)  // <- here
    @Send(buffer = "b", offset = 16, count = 8, peer = Peer.NEXT)
    void step();
}
