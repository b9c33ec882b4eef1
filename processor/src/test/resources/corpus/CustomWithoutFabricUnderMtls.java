// expect: [R11 ALLOCATOR] "buffer `a`: corpus.CustomWithoutFabricUnderMtls.Mine declares handle types [POSIX_FILE_DESCRIPTOR]"
package corpus;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.MTLINK_SHARP)
interface CustomWithoutFabricUnderMtls {
    @Buffer(count = 8, allocator = Allocator.CUSTOM, customAllocator = Mine.class) DeviceBuffer a();  // <- here
    @QualifiedAllocator(handleTypes = HandleType.POSIX_FILE_DESCRIPTOR) final class Mine implements DeviceAllocator { public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return new QualifiedVmmAllocator().allocate(vmm, bytes); } }
}
