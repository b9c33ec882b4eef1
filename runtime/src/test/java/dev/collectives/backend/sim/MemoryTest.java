package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.QualifiedAllocator;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.VirtualMemory;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Allocation with granularity, VMM and custom allocators (R11), legacy memory, host copies, use after free. */
class MemoryTest {
    private static final long GRANULARITY = 64 << 10;

    @Test
    void memAllocRoundsUpToTheGranularityAndAlignsTheHead() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            assertEquals(2 << 20, comm.granularity());
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1000)) {
                DeviceMemory memory = buffer.memory();
                assertEquals(Allocator.MEM_ALLOC, buffer.allocator());
                assertEquals(2 << 20, memory.size());
                assertEquals(2 << 20, memory.physicalSize());
                assertEquals(0, memory.address() % (2 << 20));
                assertEquals(Set.of(HandleType.POSIX_FILE_DESCRIPTOR), memory.handleTypes());
                assertEquals(1, cluster.usage().allocations());
            }
            assertEquals(0, cluster.usage().allocations());
        }
    }

    @Test
    void r11VmmMemoryIsQualifiedAndHasFabricHandlesWhereSupported() {
        try (SimCluster cluster = SimBackend.cluster()
                .granularity(GRANULARITY)
                .fabricHandles(true)
                .build()) {
            SimCommunicator comm = cluster.communicator(0);
            try (DeviceBuffer buffer = comm.allocate(Allocator.VMM, DataType.UINT8, GRANULARITY + 1)) {
                DeviceMemory memory = buffer.memory();
                assertEquals(Allocator.VMM, memory.allocator());
                assertEquals(2 * GRANULARITY, memory.physicalSize());
                assertEquals(2 * GRANULARITY, memory.reservedSize());
                assertEquals(0, memory.address() % GRANULARITY);
                assertEquals(Set.of(HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC), memory.handleTypes());
            }
        }
    }

    @Test
    void legacyMemoryIsPlain() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            try (DeviceBuffer buffer = cluster.communicator(0).allocate(Allocator.LEGACY, DataType.UINT8, 3)) {
                assertEquals(3, buffer.memory().size());
                assertTrue(!buffer.memory().isVirtualMemory());
            }
        }
    }

    /** A qualified allocator that maps exactly what the rule asks. */
    @QualifiedAllocator(handleTypes = {HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC})
    public static final class Qualified implements DeviceAllocator {
        @Override
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
            long g = vmm.granularity(Set.of(HandleType.POSIX_FILE_DESCRIPTOR));
            long size = (bytes + g - 1) / g * g;
            return vmm.map(size, size, g, Set.of(HandleType.POSIX_FILE_DESCRIPTOR));
        }
    }

    /** Maps the exact byte count: the physical size is not a multiple of the granularity. */
    @QualifiedAllocator(handleTypes = HandleType.POSIX_FILE_DESCRIPTOR)
    public static final class Unrounded implements DeviceAllocator {
        @Override
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
            return vmm.map(bytes, GRANULARITY, GRANULARITY, Set.of(HandleType.POSIX_FILE_DESCRIPTOR));
        }
    }

    /** Not annotated. */
    public static final class Undeclared implements DeviceAllocator {
        @Override
        public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
            return new Qualified().allocate(vmm, bytes);
        }
    }

    @Test
    void r11CustomAllocatorsAreCheckedAndRejectedMemoryIsFreed() {
        try (SimCluster cluster = SimBackend.cluster().granularity(GRANULARITY).build()) {
            SimCommunicator comm = cluster.communicator(0);
            try (DeviceBuffer ok = comm.allocate(new Qualified(), DataType.FLOAT32, 100)) {
                assertEquals(Allocator.CUSTOM, ok.allocator());
                assertEquals(0, ok.address() % GRANULARITY);
            }
            CollectivesException unrounded = assertThrows(
                    CollectivesException.class, () -> comm.allocate(new Unrounded(), DataType.UINT8, 1000));
            assertEquals(Rule.R11_ALLOCATOR, unrounded.rule());
            assertContains(
                    unrounded.getMessage(),
                    "[R11 ALLOCATOR] rank 0",
                    "physical size",
                    "1000",
                    "granularity " + GRANULARITY);
            CollectivesException undeclared = assertThrows(
                    CollectivesException.class, () -> comm.allocate(new Undeclared(), DataType.UINT8, 1000));
            assertContains(undeclared.getMessage(), "not annotated @QualifiedAllocator");
            assertTrue(cluster.usage().isZero(), "rejected memory must be freed: " + cluster.usage());
        }
        try (SimCluster fabric = SimBackend.cluster()
                .granularity(GRANULARITY)
                .fabricHandles(true)
                .build()) {
            CollectivesException noFabric = assertThrows(
                    CollectivesException.class,
                    () -> fabric.communicator(0).allocate(new Qualified(), DataType.UINT8, 10));
            assertContains(noFabric.getMessage(), "without the FABRIC handle type");
            assertTrue(fabric.usage().isZero());
        }
    }

    @Test
    void r11MessagesNameAllocatorsAsWrittenNeverByTheirBinaryNames() {
        try (SimCluster cluster = SimBackend.cluster().granularity(GRANULARITY).build()) {
            SimCommunicator comm = cluster.communicator(0);
            DeviceAllocator lambda = (vmm, bytes) -> new Qualified().allocate(vmm, bytes);
            DeviceAllocator anonymous = new DeviceAllocator() {
                @Override
                public DeviceMemory allocate(VirtualMemory vmm, long bytes) {
                    return new Qualified().allocate(vmm, bytes);
                }
            };
            String test = MemoryTest.class.getCanonicalName();
            for (var allocator : java.util.Map.of(
                            new Undeclared(),
                            test + ".Undeclared is not annotated",
                            lambda,
                            "a lambda in " + test + " is not annotated",
                            anonymous,
                            "an anonymous class in " + test + " is not annotated")
                    .entrySet()) {
                CollectivesException e = assertThrows(
                        CollectivesException.class, () -> comm.allocate(allocator.getKey(), DataType.UINT8, 1000));
                assertContains(e.getMessage(), allocator.getValue());
                assertFalse(e.getMessage().contains("$"), e.getMessage());
            }
            assertTrue(cluster.usage().isZero(), "rejected memory must be freed: " + cluster.usage());
        }
    }

    @Test
    void fabricHandlesAreRefusedWhereTheDeviceLacksThem() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            VirtualMemory vmm = cluster.communicator(0).virtualMemory();
            assertTrue(!vmm.supports(HandleType.FABRIC));
            assertThrows(CollectivesException.class, () -> vmm.map(4096, 4096, 4096, Set.of(HandleType.FABRIC)));
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void hostCopiesRoundTripEveryPrimitiveType() {
        try (SimCluster cluster = SimBackend.cluster().build();
                DeviceBuffer buffer = cluster.communicator(0).allocate(Allocator.LEGACY, DataType.UINT8, 64)) {
            byte[] bytes = {1, -2, 3};
            buffer.copyFromHost(bytes);
            byte[] b = new byte[3];
            buffer.copyToHost(b);
            assertArrayEquals(bytes, b);
            short[] shorts = {1, -2, 300};
            buffer.view(0, DataType.FLOAT16, 3).copyFromHost(shorts);
            short[] s = new short[3];
            buffer.view(0, DataType.FLOAT16, 3).copyToHost(s);
            assertArrayEquals(shorts, s);
            char[] chars = {'a', 'é', '\uffff'};
            buffer.view(0, DataType.BFLOAT16, 3).copyFromHost(chars);
            char[] c = new char[3];
            buffer.view(0, DataType.BFLOAT16, 3).copyToHost(c);
            assertArrayEquals(chars, c);
            int[] ints = {1, -2, Integer.MAX_VALUE};
            buffer.view(0, DataType.INT32, 3).copyFromHost(ints);
            int[] i = new int[3];
            buffer.view(0, DataType.INT32, 3).copyToHost(i);
            assertArrayEquals(ints, i);
            long[] longs = {1, -2, Long.MIN_VALUE};
            buffer.view(0, DataType.INT64, 3).copyFromHost(longs);
            long[] l = new long[3];
            buffer.view(0, DataType.INT64, 3).copyToHost(l);
            assertArrayEquals(longs, l);
            float[] floats = {1.5f, -2, Float.MIN_VALUE};
            buffer.view(0, DataType.FLOAT32, 3).copyFromHost(floats);
            float[] f = new float[3];
            buffer.view(0, DataType.FLOAT32, 3).copyToHost(f);
            assertArrayEquals(floats, f);
            double[] doubles = {1.5, -2, Double.MAX_VALUE};
            buffer.view(0, DataType.FLOAT64, 3).copyFromHost(doubles);
            double[] d = new double[3];
            buffer.view(0, DataType.FLOAT64, 3).copyToHost(d);
            assertArrayEquals(doubles, d);
            ByteBuffer heap = ByteBuffer.wrap(new byte[] {9, 8, 7, 6});
            buffer.slice(10, 4).copyFromHost(heap);
            ByteBuffer direct = ByteBuffer.allocateDirect(4);
            buffer.slice(10, 4).copyToHost(direct);
            assertEquals(ByteBuffer.wrap(new byte[] {9, 8, 7, 6}), direct);
        }
    }

    @Test
    void typedHostCopiesRefuseAnotherElementTypeAndRawBytesFitAny() {
        try (SimCluster cluster = SimBackend.cluster().build();
                DeviceBuffer ints = cluster.communicator(0).allocate(Allocator.LEGACY, DataType.INT32, 4)) {
            CollectivesException into =
                    assertThrows(CollectivesException.class, () -> ints.copyFromHost(new float[] {1.5f}));
            assertEquals(Rule.R13_TYPES, into.rule());
            assertContains(into.getMessage(), "copyFromHost(float[])", "[FLOAT32]", "not INT32", "byte[]/ByteBuffer");
            CollectivesException outOf = assertThrows(CollectivesException.class, () -> ints.copyToHost(new long[1]));
            assertContains(outOf.getMessage(), "[R13 TYPES]", "copyToHost(long[])", "not INT32");
            ByteBuffer bits = ByteBuffer.allocate(4)
                    .order(java.nio.ByteOrder.nativeOrder())
                    .putFloat(0, 1.5f);
            ints.copyFromHost(bits);
            int[] back = new int[1];
            ints.copyToHost(back);
            assertEquals(Float.floatToRawIntBits(1.5f), back[0]);
        }
    }

    @Test
    void aHostCopyRacingQueuedWorkOnTheSameBytesIsAnErrorUntilTheStreamIsSynchronized() {
        CountDownLatch copied = new CountDownLatch(1);
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.LEGACY, DataType.FLOAT32, 8)) {
                    if (ctx.rank() == 1) {
                        // rank 0's allreduce cannot run before rank 1 issues its own: it stays queued meanwhile
                        copied.await();
                    }
                    ctx.comm()
                            .allReduce(
                                    buffer.slice(0, 4),
                                    buffer.slice(4, 4),
                                    4,
                                    DataType.FLOAT32,
                                    ReduceOp.SUM,
                                    ctx.stream());
                    if (ctx.rank() == 0) {
                        CollectivesException write = assertThrows(
                                CollectivesException.class,
                                () -> buffer.slice(0, 2).copyFromHost(new float[2]));
                        assertContains(
                                write.getMessage(),
                                "[SYNC host-copy]",
                                "copyFromHost",
                                "allReduce",
                                "reading bytes [0, 16)",
                                "stream.synchronize()");
                        CollectivesException read = assertThrows(
                                CollectivesException.class,
                                () -> buffer.slice(6, 2).copyToHost(new float[2]));
                        assertContains(read.getMessage(), "[SYNC host-copy]", "copyToHost", "writing bytes [16, 32)");
                        buffer.slice(0, 2).copyToHost(new float[2]); // reading what the op only reads is no race
                        copied.countDown();
                    }
                    ctx.stream().synchronize();
                    buffer.copyFromHost(new float[8]);
                }
            });
        }
    }

    @Test
    void opsOnFreedOrForeignMemoryAreRefused() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            SimCommunicator comm = cluster.communicator(0);
            Stream stream = comm.createStream();
            DeviceBuffer freed = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4);
            freed.close();
            CollectivesException e = assertThrows(
                    CollectivesException.class,
                    () -> comm.allReduce(freed, freed, 4, DataType.FLOAT32, ReduceOp.SUM, stream));
            assertContains(e.getMessage(), "rank 0", "already freed");
            try (DeviceBuffer foreign = cluster.communicator(1).allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4)) {
                CollectivesException f = assertThrows(
                        CollectivesException.class,
                        () -> comm.allReduce(foreign, foreign, 4, DataType.FLOAT32, ReduceOp.SUM, stream));
                assertContains(f.getMessage(), "not memory of rank 0");
            }
        }
    }

    @Test
    void r13AndR7ArgumentsAreCheckedWhenTheOpIsIssued() {
        try (SimCluster cluster = SimBackend.cluster().build();
                DeviceBuffer buffer = cluster.communicator(0).allocate(Allocator.LEGACY, DataType.INT32, 16)) {
            SimCommunicator comm = cluster.communicator(0);
            Stream stream = comm.createStream();
            CollectivesException avg = assertThrows(
                    CollectivesException.class,
                    () -> comm.allReduce(buffer, buffer, 16, DataType.INT32, ReduceOp.AVG, stream));
            assertEquals(Rule.R13_TYPES, avg.rule());
            CollectivesException negative = assertThrows(
                    CollectivesException.class,
                    () -> comm.allReduce(buffer, buffer, -1, DataType.INT32, ReduceOp.SUM, stream));
            assertEquals(Rule.R13_TYPES, negative.rule());
            CollectivesException tooSmall = assertThrows(
                    CollectivesException.class,
                    () -> comm.allReduce(buffer, buffer, 17, DataType.INT32, ReduceOp.SUM, stream));
            assertContains(tooSmall.getMessage(), "holds 64 bytes", "17 x INT32 need 68");
            CollectivesException overlap = assertThrows(
                    CollectivesException.class,
                    () -> comm.allReduce(
                            buffer.slice(0, 8), buffer.slice(4, 8), 8, DataType.INT32, ReduceOp.SUM, stream));
            assertEquals(Rule.R7_ARENA, overlap.rule());
        }
    }
}
