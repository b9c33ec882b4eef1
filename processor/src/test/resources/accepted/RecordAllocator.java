package accepted;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;
import dev.collectives.annotation.Window;

@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.MTLINK_SHARP)
interface RecordAllocator {
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = Pool.class) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = Quiet.class) DeviceBuffer b();
    @AllReduce(send = "a", recv = "b", count = 8) void step();
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    record Pool() implements DeviceAllocator {
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }

    /** A package-private constructor that throws only unchecked exceptions. */
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    final class Quiet implements DeviceAllocator {
        Quiet() throws IllegalStateException { }
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }
}
