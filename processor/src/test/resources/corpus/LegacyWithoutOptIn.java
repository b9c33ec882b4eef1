// expect: [R9 LEGACY] "buffer `a` comes from Allocator.LEGACY (cudaMalloc/musaMalloc) and the GRAPH pipeline registers it"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.GRAPH)
interface LegacyWithoutOptIn {
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.LEGACY) DeviceBuffer a();  // <- here
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
}
