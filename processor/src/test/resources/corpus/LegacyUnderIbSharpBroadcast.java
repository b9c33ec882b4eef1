// expect: [R9 LEGACY] "buffer `a` comes from Allocator.LEGACY (cudaMalloc/musaMalloc) and the LOCAL pipeline registers it"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.IB_SHARP)
interface LegacyUnderIbSharpBroadcast {
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.LEGACY) DeviceBuffer a();  // <- here
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @Broadcast(send = "a", recv = "b", count = 8) void step();
}
