package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL)
interface ShadowedNamesLocal {
    @Buffer(count = 65536) DeviceBuffer block();
    @Window @View(of = "block", offsetBytes = 4096, type = DataType.FLOAT32, count = 64) DeviceBuffer w();
    @View(of = "block", type = DataType.FLOAT32, count = 64) DeviceBuffer v();
    @AllReduce(send = "v", recv = "w", count = 64) void step();
    @Send(buffer = "v", count = 8, peer = Peer.NEXT) @Recv(buffer = "w", count = 8, peer = Peer.PREVIOUS) void ring();

    final class String { }
    final class Object { }
    @interface Override { }
    final class Objects { }
    final class Long { }
    final class Boolean { }
    final class Math { }
}
