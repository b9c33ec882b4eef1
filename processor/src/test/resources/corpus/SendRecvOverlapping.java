// expect: [R7 ARENA] "the send of @Send #1 in step() and the recv of @Recv #2 in step() use bytes [0, 32) and [16, 48),"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface SendRecvOverlapping {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Send(buffer = "a", count = 8, peer = Peer.NEXT)
    @Recv(buffer = "a", count = 8, offset = 4, peer = Peer.PREVIOUS)  // <- here
    void step();
}
