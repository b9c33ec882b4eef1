// expect: [R3 MTLS-ALLOC] "buffer `a` uses corpus.MtlsUnqualifiedCustom.Mine, which is not a qualified allocator (no"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.MTLINK_SHARP)
interface MtlsUnqualifiedCustom {
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @Buffer(type = DataType.FLOAT32, count = 64) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
    final class Mine implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return new QualifiedVmmAllocator().allocate(vmm, bytes); } }
}
