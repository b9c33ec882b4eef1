package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Stream;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code comm.wrap} of memory a framework owns: each class of memory a driver tells apart, what is refused, and
 * what registration then asks of it (R5, R7, R9, R11, R13).
 */
class ForeignMemoryTest {
    private static final long GRANULARITY = 2L << 20;

    @Test
    void eachClassOfDeviceMemoryIsNamedAndKeepsItsOffsetFromTheHead() {
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignMemory legacy = SimForeignMemory.deviceMalloc(0, 4096);
                SimForeignMemory posix = SimForeignMemory.vmm(0, 4096, GRANULARITY, HandleType.POSIX_FILE_DESCRIPTOR);
                SimForeignMemory both = SimForeignMemory.vmm(
                        0, 4096, GRANULARITY, HandleType.POSIX_FILE_DESCRIPTOR, HandleType.FABRIC);
                SimForeignMemory bare = SimForeignMemory.vmm(0, 4096, GRANULARITY)) {
            SimCommunicator comm = cluster.communicator(0);
            assertClass(comm, legacy, Allocator.LEGACY, "foreign, legacy {cuda,musa}Malloc");
            assertClass(comm, posix, Allocator.VMM, "foreign, VMM with POSIX fd");
            assertClass(comm, both, Allocator.VMM, "foreign, VMM with POSIX fd and FABRIC");
            assertClass(comm, bare, Allocator.VMM, "foreign, VMM without shareable handles");
            assertEquals(GRANULARITY, posix.size(), "VMM memory is rounded up to the granularity");
            assertTrue(cluster.usage().isZero(), "wrapped memory is not the project's: " + cluster.usage());
        }
    }

    private static void assertClass(
            SimCommunicator comm, SimForeignMemory memory, Allocator allocator, String foreignClass) {
        DeviceBuffer buffer = comm.wrap(memory.address() + 1024, 512, DataType.FLOAT32);
        assertEquals(1024, buffer.headOffset());
        assertEquals(128, buffer.count());
        assertEquals(allocator, buffer.allocator());
        assertTrue(buffer.memory().isForeign());
        assertEquals(foreignClass, buffer.memory().origin());
        assertFalse(buffer.isRoot());
        assertContains(buffer.toString(), foreignClass);
    }

    /**
     * The project's own memory is memory the driver knows, as on a GPU: wrapped at its head or inside it, it is
     * classified as a framework's allocation of the same kind would be, with the offset from the allocation's head.
     */
    @Test
    void theProjectsOwnMemoryIsClassifiedAsTheDriverMadeIt() {
        try (SimCluster cluster = SimBackend.cluster().build();
                SimCluster fabric = SimBackend.cluster().fabricHandles(true).build()) {
            SimCommunicator comm = cluster.communicator(0);
            long g = comm.granularity();
            try (DeviceBuffer memAlloc = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
                    DeviceBuffer legacy = comm.allocate(Allocator.LEGACY, DataType.FLOAT32, 1024);
                    DeviceBuffer vmm = comm.allocate(Allocator.VMM, DataType.FLOAT32, 1024);
                    DeviceMemory bare = comm.virtualMemory().map(g, g, g, Set.of());
                    DeviceBuffer memAllocWithFabric =
                            fabric.communicator(0).allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024)) {
                assertOwnClass(comm, memAlloc.memory(), Allocator.VMM, "foreign, VMM with POSIX fd");
                assertOwnClass(comm, legacy.memory(), Allocator.LEGACY, "foreign, legacy {cuda,musa}Malloc");
                assertOwnClass(comm, vmm.memory(), Allocator.VMM, "foreign, VMM with POSIX fd");
                assertOwnClass(comm, bare, Allocator.VMM, "foreign, VMM without shareable handles");
                assertOwnClass(
                        fabric.communicator(0),
                        memAllocWithFabric.memory(),
                        Allocator.VMM,
                        "foreign, VMM with POSIX fd and FABRIC");
                DeviceBuffer slice = memAlloc.slice(256, 256);
                assertEquals(
                        1024, comm.wrap(slice.address(), 1024, DataType.FLOAT32).headOffset());
            }
        }
    }

    private static void assertOwnClass(
            SimCommunicator comm, DeviceMemory memory, Allocator allocator, String foreignClass) {
        for (long offset : new long[] {0, 1024}) {
            DeviceBuffer buffer = comm.wrap(memory.address() + offset, 512, DataType.FLOAT32);
            assertEquals(offset, buffer.headOffset());
            assertEquals(allocator, buffer.allocator());
            assertEquals(foreignClass, buffer.memory().origin());
            assertEquals(memory.size(), buffer.memory().size(), "the allocation's size, as MemGetAddressRange says");
            assertEquals(memory.address(), buffer.memory().address());
        }
    }

    @Test
    void freedOwnMemoryIsUnknownAgainAndIsNotFreedWhileAWrappedViewIsRegistered() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            DeviceBuffer owned = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
            DeviceBuffer wrapped = comm.wrap(owned.address() + 64, 64, DataType.FLOAT32);
            RegistrationHandle handle = comm.register(wrapped);
            CollectivesException early = assertThrows(CollectivesException.class, owned::close);
            assertEquals(Rule.R6_LOCAL, early.rule(), early.getMessage());
            handle.close();
            owned.close();
            assertTrue(wrapped.memory().isClosed(), "freeing the allocation frees its wrapped views");
            assertRefused(comm, owned.address(), "not memory the device driver knows");
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    void closingAWrappedBufferFreesNothingAndSlicesAndViewsWork() {
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignMemory memory = SimForeignMemory.deviceMalloc(0, 64)) {
            SimCommunicator comm = cluster.communicator(0);
            DeviceBuffer buffer = comm.wrap(memory.address(), 64, DataType.INT32);
            buffer.copyFromHost(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
            DeviceBuffer slice = buffer.slice(4, 4);
            assertEquals(16, slice.headOffset());
            DeviceBuffer view = buffer.view(32, DataType.INT64, 2);
            assertEquals(32, view.headOffset());
            buffer.close();
            int[] back = new int[4];
            slice.copyToHost(back);
            assertArrayEquals(new int[] {5, 6, 7, 8}, back, "the memory is still there after close()");
            assertFalse(buffer.memory().isClosed());
        }
    }

    @Test
    void hostPinnedAndManagedMemoryAreRefusedNamingWhatTheAddressIs() {
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignMemory pinned = SimForeignMemory.pinnedHost(256);
                SimForeignMemory managed = SimForeignMemory.managed(256);
                SimForeignMemory pageable = SimForeignMemory.pageableHost(256)) {
            SimCommunicator comm = cluster.communicator(0);
            assertRefused(comm, pinned.address(), "is pinned host memory");
            assertRefused(comm, managed.address(), "is managed memory");
            assertRefused(comm, pageable.address(), "pageable host memory, or no allocation at all");
            assertRefused(comm, 0x10, "not memory the device driver knows");
        }
    }

    private static void assertRefused(SimCommunicator comm, long address, String what) {
        CollectivesException e = assertThrows(CollectivesException.class, () -> comm.wrap(address, 64, DataType.UINT8));
        assertNull(e.rule(), e.getMessage());
        assertContains(
                e.getMessage(),
                "rank 0: wrap of 64 bytes at 0x" + Long.toHexString(address),
                what,
                "collectives take device memory only");
    }

    @Test
    void aRangePastItsAllocationAnOddSizeOrAnotherDeviceIsRefused() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build();
                SimForeignMemory memory = SimForeignMemory.deviceMalloc(0, 1024)) {
            SimCommunicator comm = cluster.communicator(0);
            CollectivesException past = assertThrows(
                    CollectivesException.class, () -> comm.wrap(memory.address() + 512, 1024, DataType.FLOAT32));
            assertEquals(Rule.R7_ARENA, past.rule());
            assertContains(past.getMessage(), "runs past its allocation", "1024 bytes) by 512 bytes");
            CollectivesException odd =
                    assertThrows(CollectivesException.class, () -> comm.wrap(memory.address(), 6, DataType.FLOAT32));
            assertEquals(Rule.R13_TYPES, odd.rule());
            CollectivesException other = assertThrows(
                    CollectivesException.class,
                    () -> cluster.communicator(1).wrap(memory.address(), 64, DataType.FLOAT32));
            assertContains(other.getMessage(), "rank 1:", "memory is on device 0, this communicator on device 1");
        }
    }

    @Test
    void collectivesRunOnWrappedMemory() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            SimForeignMemory[] memory = {SimForeignMemory.deviceMalloc(0, 64), SimForeignMemory.deviceMalloc(1, 64)};
            cluster.run(ctx -> {
                DeviceBuffer buffer = ctx.comm().wrap(memory[ctx.rank()].address(), 64, DataType.FLOAT32);
                float[] mine = new float[16];
                Arrays.fill(mine, ctx.rank() + 1);
                buffer.copyFromHost(mine);
                ctx.comm()
                        .allReduce(
                                buffer.slice(0, 8),
                                buffer.slice(8, 8),
                                8,
                                DataType.FLOAT32,
                                ReduceOp.SUM,
                                ctx.stream());
                ctx.stream().synchronize();
                float[] back = new float[16];
                buffer.copyToHost(back);
                assertEquals(3f, back[8]);
                assertEquals(3f, back[15]);
                assertEquals(ctx.rank() + 1f, back[0]);
            });
            memory[0].close();
            memory[1].close();
        }
    }

    @Test
    void r11RegisteringWrappedVmmMemoryNeedsQualifiedHandleTypesAndSizes() {
        try (SimCluster cluster = SimBackend.cluster().build();
                SimForeignMemory bare = SimForeignMemory.vmm(0, 4096, GRANULARITY);
                SimForeignMemory small = SimForeignMemory.vmm(0, 4096, 4096, HandleType.POSIX_FILE_DESCRIPTOR);
                SimForeignMemory qualified =
                        SimForeignMemory.vmm(0, 4096, GRANULARITY, HandleType.POSIX_FILE_DESCRIPTOR)) {
            SimCommunicator comm = cluster.communicator(0);
            CollectivesException noFd = assertThrows(
                    CollectivesException.class, () -> comm.register(comm.wrap(bare.address(), 4096, DataType.UINT8)));
            assertEquals(Rule.R11_ALLOCATOR, noFd.rule());
            assertContains(noFd.getMessage(), "foreign, VMM without shareable handles", "POSIX_FILE_DESCRIPTOR");
            CollectivesException size = assertThrows(
                    CollectivesException.class, () -> comm.register(comm.wrap(small.address(), 4096, DataType.UINT8)));
            assertEquals(Rule.R11_ALLOCATOR, size.rule());
            assertContains(size.getMessage(), "physical size", "granularity " + GRANULARITY);
            try (RegistrationHandle handle = comm.register(comm.wrap(qualified.address(), 4096, DataType.UINT8))) {
                assertTrue(handle.isOpen());
            }
        }
    }

    @Test
    void r11FabricHandlesAreNeededWhereTheDeviceHasThem() {
        try (SimCluster cluster = SimBackend.cluster().fabricHandles(true).build();
                SimForeignMemory posix = SimForeignMemory.vmm(0, 4096, GRANULARITY, HandleType.POSIX_FILE_DESCRIPTOR)) {
            CollectivesException e = assertThrows(
                    CollectivesException.class,
                    () -> cluster.communicator(0)
                            .register(cluster.communicator(0).wrap(posix.address(), 4096, DataType.UINT8)));
            assertEquals(Rule.R11_ALLOCATOR, e.rule());
            assertContains(e.getMessage(), "FABRIC");
        }
    }

    @Test
    void r9RegisteringWrappedLegacyMemoryNeedsTheVariable() {
        try (SimCluster without = SimBackend.cluster().build();
                SimCluster with = SimBackend.cluster()
                        .environment(SimConfig.LEGACY_REGISTER_VARIABLE, "1")
                        .build();
                SimForeignMemory legacy = SimForeignMemory.deviceMalloc(0, 256)) {
            CollectivesException e = assertThrows(
                    CollectivesException.class,
                    () -> without.communicator(0)
                            .register(without.communicator(0).wrap(legacy.address(), 256, DataType.UINT8)));
            assertEquals(Rule.R9_LEGACY, e.rule());
            assertContains(e.getMessage(), "foreign, legacy {cuda,musa}Malloc", "MCCL_LEGACY_MUSA_REGISTER=1");
            with.communicator(0)
                    .register(with.communicator(0).wrap(legacy.address(), 256, DataType.UINT8))
                    .close();
        }
    }

    @Test
    void r5TheFrameworkCannotFreeMemoryThatIsStillRegisteredAndFreedMemoryIsNotUsed() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            Stream stream = comm.createStream();
            SimForeignMemory memory = SimForeignMemory.vmm(0, 4096, GRANULARITY, HandleType.POSIX_FILE_DESCRIPTOR);
            DeviceBuffer buffer = comm.wrap(memory.address(), 4096, DataType.FLOAT32);
            RegistrationHandle handle = comm.register(buffer);
            CollectivesException early = assertThrows(CollectivesException.class, memory::close);
            assertEquals(Rule.R6_LOCAL, early.rule());
            handle.close();
            memory.close();
            memory.close(); // idempotent
            CollectivesException after = assertThrows(
                    CollectivesException.class,
                    () -> comm.allReduce(buffer, buffer, 16, DataType.FLOAT32, ReduceOp.SUM, stream));
            assertContains(after.getMessage(), "already freed");
            CollectivesException rewrap =
                    assertThrows(CollectivesException.class, () -> comm.wrap(memory.address(), 16, DataType.UINT8));
            assertContains(rewrap.getMessage(), "not memory the device driver knows");
        }
    }
}
