// expect: [R3 MTLS-ALLOC] "buffer `a` uses Allocator.LEGACY (cudaMalloc/musaMalloc), but MTLink SHARP registration needs ncclMemAlloc/mcclMemAlloc or"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.MTLINK_SHARP, allowLegacyRegistration = true)
interface MtlsLegacy {
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.LEGACY) DeviceBuffer a();  // <- here
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
}
