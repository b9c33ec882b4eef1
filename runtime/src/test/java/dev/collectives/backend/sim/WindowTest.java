package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static dev.collectives.backend.sim.PerRank.assertEveryRank;
import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.Result;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** RegisteredWindow registration (R12) and the window helpers (R10). */
class WindowTest {
    private static final long OFFSET = 64;

    @Test
    void r10LsaPointersReachThePeersOnTheSameNode() {
        long[] registered = new long[4];
        long[][] seen = new long[4][2];
        try (SimCluster cluster = SimBackend.cluster().ranks(4).ranksPerNode(2).build()) {
            cluster.run(ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1024);
                        RegisteredWindow window = ctx.comm().registerWindow(buffer, true)) {
                    registered[ctx.rank()] = buffer.address();
                    assertEquals(OptionalLong.of(buffer.address()), window.userPointer());
                    for (int lsaRank = 0; lsaRank < 2; lsaRank++) {
                        seen[ctx.rank()][lsaRank] =
                                window.lsaDevicePointer(OFFSET, lsaRank).orElseThrow();
                    }
                    CollectivesException outside =
                            assertThrows(CollectivesException.class, () -> window.lsaDevicePointer(0, 2));
                    assertContains(outside.getMessage(), "rank " + ctx.rank(), "team of 2 rank(s)");
                }
            });
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
        for (int rank = 0; rank < 4; rank++) {
            int firstOnNode = rank / 2 * 2;
            for (int lsaRank = 0; lsaRank < 2; lsaRank++) {
                assertEquals(
                        registered[firstOnNode + lsaRank] + OFFSET,
                        seen[rank][lsaRank],
                        "rank " + rank + " looking at lsaRank " + lsaRank);
            }
        }
    }

    @Test
    void r10WithoutWindowHelpersThePointersAreEmpty() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).windowHelpers(false).build()) {
            cluster.run(ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.VMM, DataType.FLOAT32, 1024);
                        RegisteredWindow window = ctx.comm().registerWindow(buffer, true)) {
                    assertEquals(OptionalLong.empty(), window.userPointer());
                    assertEquals(OptionalLong.empty(), window.lsaDevicePointer(0, 1));
                }
            });
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @Test
    void r12LegacyMemoryFailsEveryRank() {
        expectEveryRank(
                Rule.R12_WINDOW,
                (comm, buffer) -> comm.rank() == 1 ? comm.allocate(Allocator.LEGACY, DataType.UINT8, 8192) : buffer,
                true,
                "needs VMM or {nccl,mccl}MemAlloc memory",
                "rank 1: ",
                "LEGACY");
    }

    @Test
    void r12UnalignedHeadFailsEveryRank() {
        expectEveryRank(
                Rule.R12_WINDOW,
                (comm, buffer) -> comm.rank() == 0 ? buffer.slice(100, 4096) : buffer,
                true,
                "aligned to 4096 bytes",
                "rank 0: 0x");
    }

    @Test
    void r12SymmetricWindowsNeedTheSameOffsetOnEveryRank() {
        expectEveryRank(
                Rule.R12_WINDOW,
                (comm, buffer) -> buffer.slice(4096L * comm.rank(), 4096),
                true,
                "same offset",
                "rank 0: 0 bytes",
                "rank 1: 4096 bytes");
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.UINT8, 16384);
                        RegisteredWindow window =
                                ctx.comm().registerWindow(buffer.slice(4096L * ctx.rank(), 4096), false)) {
                    assertEquals(false, window.symmetric());
                }
            });
        }
    }

    @Test
    void windowsNeedSymmetricWindowSupport() {
        try (SimCluster cluster = SimBackend.cluster().symmetricWindows(false).build()) {
            SimCommunicator comm = cluster.communicator(0);
            try (DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, 4096)) {
                CollectivesException e =
                        assertThrows(CollectivesException.class, () -> comm.registerWindow(buffer, true));
                assertEquals(Result.INVALID_USAGE, e.result());
                assertContains(e.getMessage(), "NULL window", "no symmetric window support");
            }
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void r12WindowMemoryCannotBeFreedBeforeTheWindowIsClosed() {
        try (SimCluster cluster = SimBackend.cluster().build()) {
            SimCommunicator comm = cluster.communicator(0);
            DeviceBuffer buffer = comm.allocate(Allocator.MEM_ALLOC, DataType.UINT8, 4096);
            RegisteredWindow window = comm.registerWindow(buffer, true);
            assertEquals(1, cluster.usage().windows());
            CollectivesException early = assertThrows(CollectivesException.class, buffer::close);
            assertEquals(Rule.R12_WINDOW, early.rule());
            assertContains(early.getMessage(), "still backs 1 window(s)");
            window.close();
            window.close();
            assertContains(
                    assertThrows(CollectivesException.class, window::userPointer)
                            .getMessage(),
                    "already deregistered");
            buffer.close();
            assertTrue(cluster.usage().isZero());
        }
    }

    @Test
    void closingAWindowWaitsForEveryRankAndTimesOut() {
        try (SimCluster cluster =
                SimBackend.cluster().ranks(2).timeout(PerRank.SHORT).build()) {
            RegisteredWindow[] windows = new RegisteredWindow[2];
            DeviceBuffer[] buffers = new DeviceBuffer[2];
            cluster.run(ctx -> {
                buffers[ctx.rank()] = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.UINT8, 4096);
                windows[ctx.rank()] = ctx.comm().registerWindow(buffers[ctx.rank()], true);
            });
            CollectivesException e = assertThrows(CollectivesException.class, windows[0]::close);
            assertContains(e.getMessage(), "rank 0", "ranks [1] did not arrive within 300 ms");
            assertThrows(CollectivesException.class, windows[1]::close, "rank 1 comes too late");
            buffers[0].close();
            buffers[1].close();
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }

    @FunctionalInterface
    private interface Pick {
        DeviceBuffer window(Communicator comm, DeviceBuffer eightKiB);
    }

    private static void expectEveryRank(Rule rule, Pick pick, boolean symmetric, String... fragments) {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] f = failures(cluster, ctx -> {
                try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.UINT8, 8192)) {
                    DeviceBuffer target = pick.window(ctx.comm(), buffer);
                    try {
                        ctx.comm().registerWindow(target, symmetric).close();
                    } finally {
                        target.close(); // frees it if it is a root of its own
                    }
                }
            });
            assertEveryRank(f, rule, fragments);
            assertTrue(cluster.usage().isZero(), cluster.usage().toString());
        }
    }
}
