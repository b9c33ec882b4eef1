package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.internal.LegacyRegistrationRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Local registration (R6): the cache, deregistration, legacy memory (R9) and freeing registered memory (R5). */
class RegistrationTest {
    @Test
    void r6RegisteringTheSameAllocationAgainIsCachedAndReferenceCounted() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
            RegistrationHandle first = comm.register(buffer);
            RegistrationHandle second = comm.register(buffer.slice(256, 256));
            assertEquals(1, cluster.usage().registrations());
            assertSame(buffer, first.buffer());
            first.close();
            first.close(); // idempotent: a handle releases its reference once
            assertFalse(first.isOpen());
            assertTrue(second.isOpen());
            assertEquals(1, cluster.usage().registrations());
            second.close();
            assertEquals(0, cluster.usage().registrations());
            buffer.close();
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void r6DeregisteringAStaleOrUnknownHandleIsAnError() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            SimCommunicator comm = cluster.communicator(0);
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, 64)) {
                RegistrationHandle handle = comm.register(buffer);
                RegistrationHandle stillHeld = comm.register(buffer);
                comm.deregister(handle);
                CollectivesException stale = assertThrows(CollectivesException.class, () -> comm.deregister(handle));
                assertEquals(Rule.R6_LOCAL, stale.rule());
                assertContains(
                        stale.getMessage(), "[R6 LOCAL] rank 0", "already deregistered", "{nccl,mccl}CommDeregister");
                assertEquals(1, cluster.usage().registrations()); // the stale call did not release stillHeld's
                CollectivesException unknown = assertThrows(
                        CollectivesException.class,
                        () -> cluster.communicator(1).deregister(stillHeld));
                assertContains(unknown.getMessage(), "[R6 LOCAL] rank 1", "unknown handle");
                stillHeld.close();
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void r9LegacyRegistrationNeedsTheVariable() {
        for (String value : new String[] {null, "0"}) {
            try (SimCluster cluster = SimBackend.cluster()
                    .environment(SimConfig.LEGACY_REGISTER_VARIABLE, value)
                    .build()) {
                SimCommunicator comm = cluster.communicator(0);
                try (DeviceBuffer legacy = comm.allocate(Allocator.LEGACY, DataType.FLOAT32, 16)) {
                    CollectivesException e = assertThrows(CollectivesException.class, () -> comm.register(legacy));
                    assertEquals(Rule.R9_LEGACY, e.rule());
                    assertTrue(e.getMessage().startsWith("[R9 LEGACY] rank 0: "), e.getMessage());
                    assertContains(
                            e.getMessage(), "MCCL_LEGACY_MUSA_REGISTER=1", value == null ? "unset" : "'0'", "LEGACY");
                }
                assertTrue(cluster.usage().isZero());
            }
        }
        try (SimCluster cluster = SimBackend.cluster()
                .environment(SimConfig.LEGACY_REGISTER_VARIABLE, "1")
                .build()) {
            SimCommunicator comm = cluster.communicator(0);
            assertEquals("MCCL_LEGACY_MUSA_REGISTER", comm.legacyRegisterVariable());
            try (DeviceBuffer legacy = comm.allocate(Allocator.LEGACY, DataType.FLOAT32, 16);
                    RegistrationHandle handle = comm.register(legacy)) {
                assertTrue(handle.isOpen());
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @ParameterizedTest(name = "IB SHARP {0}, {1} ranks per node")
    @CsvSource({"true, 1", "true, 2", "false, 1"})
    void r9IbSharpRegistersLegacyMemoryWithoutTheVariableOnlyAtOneRankPerNode(boolean ibSharp, int ranksPerNode) {
        try (SimCluster cluster = SimBackend.cluster()
                .ranks(2)
                .ranksPerNode(ranksPerNode)
                .ibSharp(ibSharp)
                .environment(SimConfig.LEGACY_REGISTER_VARIABLE, null)
                .build()) {
            SimCommunicator comm = cluster.communicator(0);
            try (DeviceBuffer legacy = comm.allocate(Allocator.LEGACY, DataType.FLOAT32, 16)) {
                if (ibSharp && ranksPerNode == 1) {
                    assertTrue(LegacyRegistrationRule.ibSharpRegisters(comm));
                    try (RegistrationHandle handle = comm.register(legacy)) {
                        assertTrue(handle.isOpen());
                    }
                } else {
                    CollectivesException e = assertThrows(CollectivesException.class, () -> comm.register(legacy));
                    assertEquals(Rule.R9_LEGACY, e.rule());
                    assertContains(
                            e.getMessage(),
                            "[R9 LEGACY] rank 0: ",
                            "MCCL_LEGACY_MUSA_REGISTER=1",
                            "unset",
                            ibSharp
                                    ? "needs 1 rank per node; this communicator has 2 ranks, 2 per node"
                                    : "is not enabled on this communicator");
                }
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void environmentDefaultsToTheProcessEnvironment() {
        try (SimCluster cluster =
                SimBackend.cluster().environment("SOME_OTHER", "x").build()) {
            SimCommunicator comm = cluster.communicator(0);
            assertEquals(java.util.Optional.ofNullable(System.getenv("PATH")), comm.environment("PATH"));
            assertEquals(java.util.Optional.of("x"), comm.environment("SOME_OTHER"));
        }
    }

    @Test
    void r6FreeingRegisteredMemoryIsRefusedUntilDeregistered() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            DeviceBuffer buffer = comm.allocate(Allocator.VMM, DataType.FLOAT32, 16);
            RegistrationHandle handle = comm.register(buffer);
            CollectivesException e = assertThrows(CollectivesException.class, buffer::close);
            assertEquals(Rule.R6_LOCAL, e.rule());
            assertContains(e.getMessage(), "rank 0", "still registered", "VMM memory");
            assertFalse(buffer.memory().isClosed());
            handle.close();
            buffer.close();
            assertTrue(buffer.memory().isClosed());
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    @SuppressWarnings("try") // the registration handles are only there to be closed
    void r6LocallyRegisteredBuffersServeCollectives() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                try (DeviceBuffer send = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.INT32, 4);
                        DeviceBuffer recv = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.INT32, 4);
                        RegistrationHandle s = ctx.comm().register(send);
                        RegistrationHandle r = ctx.comm().register(recv)) {
                    send.copyFromHost(new int[] {1, 2, 3, ctx.rank()});
                    for (int i = 0; i < 3; i++) { // register once, reuse many times
                        ctx.comm().allReduce(send, recv, 4, DataType.INT32, ReduceOp.SUM, ctx.stream());
                    }
                    ctx.stream().synchronize();
                    int[] out = new int[4];
                    recv.copyToHost(out);
                    assertEquals(
                            java.util.List.of(2, 4, 6, 1),
                            java.util.Arrays.stream(out).boxed().toList());
                }
            });
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void registrationNeedsTheCapability() {
        try (SimCluster cluster = SimBackend.cluster()
                .registration(false)
                .libraryVersion("2.27.0")
                .build()) {
            SimCommunicator comm = cluster.communicator(0);
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, 8)) {
                CollectivesException e = assertThrows(CollectivesException.class, () -> comm.register(buffer));
                assertContains(e.getMessage(), "2.27.0", "does not support user buffer registration");
            }
        }
    }
}
