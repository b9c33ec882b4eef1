package accepted;

import java.util.List;

import dev.collectives.annotation.*;
import dev.collectives.runtime.*;

/**
 * Generic allocators: a class literal names them raw, so the generated code writes new X<>() and javac infers the
 * type arguments, which are erased at run time.
 */
@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.MTLINK_SHARP)
interface GenericAllocators {
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = Plain.class) DeviceBuffer a();
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = Bounded.class) DeviceBuffer b();
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = SelfBounded.class) DeviceBuffer c();
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = Intersection.class) DeviceBuffer d();
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = Dependent.class) DeviceBuffer e();
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = GenericRecord.class) DeviceBuffer f();
    @Buffer(type = DataType.FLOAT32, count = 64, allocator = Allocator.CUSTOM, customAllocator = ThrowsInferred.class) DeviceBuffer g();
    @AllReduce(send = "a", recv = "b", count = 8) void step();

    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    final class Plain<T> implements DeviceAllocator {
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }

    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    final class Bounded<T extends Number> implements DeviceAllocator {
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }

    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    final class SelfBounded<T extends Comparable<T>> implements DeviceAllocator {
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }

    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    final class Intersection<T extends Number & Comparable<T>> implements DeviceAllocator {
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }

    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    final class Dependent<T, L extends List<T>> implements DeviceAllocator {
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }

    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    record GenericRecord<T>() implements DeviceAllocator {
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }

    /** Its constructor's own thrown type parameter is inferred as a RuntimeException. */
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    final class ThrowsInferred<T> implements DeviceAllocator {
        <E extends Exception> ThrowsInferred() throws E { }
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) { return vmm.map(bytes, bytes, 1, vmm.qualifiedHandleTypes()); }
    }
}
