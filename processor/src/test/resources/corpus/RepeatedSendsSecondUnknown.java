// expect: [DSL unknown-buffer] "names no accessor of RepeatedSendsSecondUnknown"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface RepeatedSendsSecondUnknown {
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Send(buffer = "a", count = 8, peer = Peer.NEXT)
    @Send(buffer = "c", count = 8, peer = Peer.NEXT)  // <- here
    @Recv(buffer = "b", count = 8, peer = Peer.PREVIOUS)
    @Recv(buffer = "b", count = 8, offset = 8, peer = Peer.PREVIOUS)
    void step();
}
