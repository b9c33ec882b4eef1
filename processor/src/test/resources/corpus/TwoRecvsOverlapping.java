// expect: [R7 ARENA] "the recv of @Recv #3 in step() and the recv of @Recv #4 in step() use bytes [0, 32) and [16, 48),"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface TwoRecvsOverlapping {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Send(buffer = "a", count = 8, peer = Peer.NEXT)
    @Send(buffer = "a", count = 8, peer = Peer.PREVIOUS)
    @Recv(buffer = "b", count = 8, peer = Peer.PREVIOUS)
    @Recv(buffer = "b", count = 8, offset = 4, peer = Peer.NEXT)  // <- here
    void step();
}
