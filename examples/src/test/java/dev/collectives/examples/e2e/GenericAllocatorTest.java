package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.QualifiedAllocator;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.QualifiedVmmAllocator;
import dev.collectives.runtime.VirtualMemory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A generic custom allocator (R11): the generated bind instantiates it with {@code new Pool<>()}, and it serves. */
class GenericAllocatorTest {
    private static final int COUNT = 8;

    @CollectivePipeline(registration = Registration.LOCAL)
    interface Pooled {
        @Buffer(type = DataType.FLOAT32, count = COUNT, allocator = Allocator.CUSTOM, customAllocator = Pool.class)
        DeviceBuffer in();

        @Buffer(type = DataType.FLOAT32, count = COUNT, allocator = Allocator.CUSTOM, customAllocator = Pool.class)
        DeviceBuffer out();

        @AllReduce(send = "in", recv = "out", count = COUNT)
        void sum();

        /** Generic in what it might count; the project's qualified VMM allocator behind it. */
        @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
        final class Pool<T extends Number & Comparable<T>> implements DeviceAllocator {
            @Override
            public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
                return new QualifiedVmmAllocator().allocate(vmm, bytes);
            }
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 3})
    void aGenericAllocatorsMemoryIsRegisteredAndReduced(int ranks) {
        Ranks.run(ranks, rank -> {
            try (var p = CollectiveGenericAllocatorTest_Pooled.bind(rank.comm(), rank.stream())) {
                assertTrue(p.in().memory().isVirtualMemory(), p.in().toString());
                p.in().copyFromHost(Ranks.filled(COUNT, rank.rank() + 1));
                p.sum();
                rank.stream().synchronize();
                assertFloats(Ranks.filled(COUNT, ranks * (ranks + 1) / 2f), p.out(), "out");
            }
        });
    }
}
