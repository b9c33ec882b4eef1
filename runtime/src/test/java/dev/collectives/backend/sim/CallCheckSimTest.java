package dev.collectives.backend.sim;

import static dev.collectives.backend.sim.PerRank.assertContains;
import static dev.collectives.backend.sim.PerRank.assertEveryRank;
import static dev.collectives.backend.sim.PerRank.failures;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RankContext;
import dev.collectives.runtime.internal.CallCheck;
import dev.collectives.runtime.spi.HostStaging;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The sim checks, always, that every rank calls a step with the same arguments (R14). */
class CallCheckSimTest {
    /** A SHA-256 digest of a call: what each rank's slot of the check's memory holds. */
    private static final int DIGEST_BYTES = 32;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 8})
    void ranksThatAgreePassAndLeaveNothingBehind(int ranks) {
        AtomicInteger passed = new AtomicInteger();
        try (SimCluster cluster = SimBackend.cluster().ranks(ranks).build()) {
            cluster.run(ctx -> {
                try (CallCheck calls = new CallCheck(ctx.comm(), ctx.stream(), "Buckets")) {
                    for (long n = 1; n <= 3; n++) {
                        calls.agree("bucket", "@AllReduce", 1024 * n, n);
                    }
                    calls.agree("flush", "@Broadcast");
                }
                passed.incrementAndGet();
            });
            assertEquals(ranks, passed.get());
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4, 8})
    void oneRankWithOtherArgumentsFailsEveryRankNamingTheValues(int ranks) {
        try (SimCluster cluster = SimBackend.cluster().ranks(ranks).build()) {
            int odd = ranks - 1;
            Throwable[] failures = failures(cluster, ctx -> {
                try (CallCheck calls = new CallCheck(ctx.comm(), ctx.stream(), "Buckets")) {
                    calls.agree("bucket", "@AllReduce", 0, 1024);
                    calls.agree("bucket", "@AllReduce", 0, ctx.rank() == odd ? 512 : 1024);
                }
            });
            assertEveryRank(
                    failures,
                    Rule.R14_SHAPE,
                    "Buckets.bucket() with different arguments",
                    "rank 0: Buckets.bucket(0, 1024)",
                    "rank " + odd + ": Buckets.bucket(0, 512)");
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
        }
    }

    /** The check is the step's first exchange: when a peer is gone, the user's call is what failed, not the check. */
    @Test
    void aPeerGoneDuringTheCheckFailsTheStepNamingItAndItsOp() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            CollectivesException e = assertThrows(
                    CollectivesException.class,
                    () -> cluster.run(ctx -> {
                        if (ctx.rank() == 1) {
                            ctx.comm().abort();
                            return;
                        }
                        try (CallCheck calls = new CallCheck(ctx.comm(), ctx.stream(), "Buckets")) {
                            calls.agree("bucket", "@AllReduce", 0, 8);
                        }
                    }));
            assertTrue(
                    e.getMessage().startsWith("rank 0 failed: [REMOTE_ERROR ")
                            && e.getMessage()
                                    .contains(
                                            "] Buckets.bucket(0, 8) (@AllReduce) failed: the communicator was aborted"),
                    e.getMessage());
            assertFalse(e.getMessage().contains("allGather"), e.getMessage());
        }
    }

    @Test
    void ranksCallingDifferentStepsFailEveryRank() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            Throwable[] failures = failures(cluster, ctx -> {
                try (CallCheck calls = new CallCheck(ctx.comm(), ctx.stream(), "Buckets")) {
                    calls.agree(ctx.rank() == 0 ? "bucket" : "tail", "@AllReduce", 8);
                }
            });
            assertEveryRank(failures, Rule.R14_SHAPE, "rank 0: Buckets.bucket(8)", "rank 1: Buckets.tail(8)");
        }
    }

    @Test
    void theBuffersAreMadeAtTheFirstCheckedCallKeptForTheOthersAndFreedByClose() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            cluster.run(ctx -> {
                AtomicInteger allocations = new AtomicInteger();
                CallCheck calls = new CallCheck(counting(ctx.comm(), allocations), ctx.stream(), "Buckets");
                assertEquals(0, live(ctx));
                for (long n = 0; n < 100; n++) {
                    calls.agree("bucket", "@AllReduce", n * 8, 8);
                }
                // this rank's digest and every rank's: two buffers for all 100 calls
                assertEquals(2, allocations.get());
                assertEquals(2, live(ctx));
                calls.close();
                calls.close();
                assertEquals(0, live(ctx));
                CollectivesException late =
                        assertThrows(CollectivesException.class, () -> calls.agree("bucket", "@AllReduce", 0, 8));
                assertContains(late.getMessage(), "Buckets", "bucket");
                assertEquals(2, allocations.get());
            });
        }
    }

    /**
     * Where the communicator offers host staging (on a GPU, pinned host memory the device reaches in place), the
     * check allgathers from this rank's digest at the staging's head into every rank's after it and reads them
     * there: one staging for all the calls, no device buffer, and close frees it.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 4})
    void withHostStagingTheDigestsAreGatheredInItAndNoDeviceBufferIsMade(int ranks) {
        try (SimCluster cluster = SimBackend.cluster().ranks(ranks).build()) {
            cluster.run(ctx -> {
                AtomicInteger allocations = new AtomicInteger();
                List<HostStaging> stagings = new ArrayList<>();
                CallCheck calls = new CallCheck(staging(ctx.comm(), allocations, stagings), ctx.stream(), "Buckets");
                for (long n = 0; n < 100; n++) {
                    calls.agree("bucket", "@AllReduce", n * 8, 8);
                }
                assertEquals(0, allocations.get());
                assertEquals(1, stagings.size());
                assertEquals(1, live(ctx));
                ByteBuffer gathered = stagings.get(0).buffer();
                byte[] mine = new byte[DIGEST_BYTES];
                gathered.get(0, mine);
                for (int r = 0; r < ranks; r++) {
                    byte[] rank = new byte[DIGEST_BYTES];
                    gathered.get(DIGEST_BYTES * (r + 1), rank);
                    assertArrayEquals(mine, rank, "rank " + r + "'s digest");
                }
                calls.close();
                assertEquals(0, live(ctx));
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void withHostStagingTheLastRankWithOtherArgumentsFailsEveryRank(int ranks) {
        try (SimCluster cluster = SimBackend.cluster().ranks(ranks).build()) {
            int odd = ranks - 1;
            Throwable[] failures = failures(cluster, ctx -> {
                try (CallCheck calls = new CallCheck(
                        staging(ctx.comm(), new AtomicInteger(), new ArrayList<>()), ctx.stream(), "Buckets")) {
                    calls.agree("bucket", "@AllReduce", 0, 1024);
                    calls.agree("bucket", "@AllReduce", 0, ctx.rank() == odd ? 512 : 1024);
                }
            });
            assertEveryRank(
                    failures,
                    Rule.R14_SHAPE,
                    "rank 0: Buckets.bucket(0, 1024)",
                    "rank " + odd + ": Buckets.bucket(0, 512)");
            assertEquals(new SimUsage(0, 0, 0, 0, 0), cluster.usage());
        }
    }

    private static int live(RankContext ctx) {
        return ((SimCommunicator) ctx.comm()).ledger().snapshot().allocations();
    }

    /** {@code comm}, counting the allocations made through it. */
    private static Communicator counting(Communicator comm, AtomicInteger allocations) {
        return proxy(comm, allocations, new Class<?>[] {Communicator.class}, null);
    }

    /**
     * {@code comm}, counting the allocations made through it, and offering host staging in its memory, which the
     * host reads and writes directly; each staging made is added to {@code made}.
     */
    private static Communicator staging(Communicator comm, AtomicInteger allocations, List<HostStaging> made) {
        return proxy(comm, allocations, new Class<?>[] {Communicator.class, HostStaging.Provider.class}, bytes -> {
            DeviceBuffer memory = comm.allocate(Allocator.LEGACY, DataType.UINT8, bytes);
            HostStaging staging = new HostStaging(memory, Kernels.view(memory.address(), bytes));
            made.add(staging);
            return Optional.of(staging);
        });
    }

    private static Communicator proxy(
            Communicator comm, AtomicInteger allocations, Class<?>[] interfaces, HostStaging.Provider provider) {
        return (Communicator) Proxy.newProxyInstance(
                Communicator.class.getClassLoader(), interfaces, (proxy, method, args) -> {
                    if (method.getName().equals("allocateStaging")) {
                        return provider.allocateStaging((Long) args[0]);
                    }
                    if (method.getName().equals("allocate")) {
                        allocations.incrementAndGet();
                    }
                    try {
                        return method.invoke(comm, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
