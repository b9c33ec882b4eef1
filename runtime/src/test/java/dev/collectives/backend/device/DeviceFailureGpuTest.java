package dev.collectives.backend.device;

import static dev.collectives.backend.device.GpuFixture.RANKS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.bootstrap.TestRanks;
import dev.collectives.runtime.internal.Fingerprint;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Failures end on every rank with an exception, never a hang: ranks on two GPUs, or processes on one. */
@Tag("gpu")
@ExtendWith(GpuFixture.ProcessesOnOneGpu.class)
class DeviceFailureGpuTest {
    @Test
    void r14RanksBindingDifferentPipelinesFailOnBothGpus() {
        AtomicReferenceArray<CollectivesException> seen = new AtomicReferenceArray<>(RANKS);
        int[] here = assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (TestRanks ranks = GpuFixture.ranks()) {
                ranks.run(ctx -> {
                    Fingerprint fingerprint = Fingerprint.builder("Pipeline")
                            .add("op 0", "allReduce sendbuff+0 recvbuff+0 count=" + (ctx.rank() == 0 ? 1024 : 2048))
                            .build();
                    try {
                        fingerprint.exchange(ctx.comm(), ctx.stream());
                    } catch (CollectivesException e) {
                        seen.set(ctx.rank(), e);
                    }
                });
                return ranks.here().toArray();
            }
        });
        for (int r : here) {
            CollectivesException e = seen.get(r);
            assertNotNull(e, "rank " + r + " did not fail");
            assertEquals(Rule.R14_SHAPE, e.rule());
            assertTrue(e.getMessage().contains("count=1024") && e.getMessage().contains("count=2048"), e.getMessage());
        }
    }

    @Test
    void aFailingRankAbortsTheOthersWhichStopWaiting() {
        // rank 0 throws once every rank has passed a barrier (an allreduce) after which the others enter a
        // collective, where they wait for rank 0. No rank can signal from inside the blocking native call: the abort
        // may find a rank just short of it (its call then refuses the aborted communicator) rather than waiting in
        // it; either way that rank must fail, not hang. Ranks of this JVM are aborted by the cluster; a rank of
        // another process, by NCCL's error when rank 0's process aborts its communicator, or by the sync timeout
        AtomicReferenceArray<Throwable> failed = new AtomicReferenceArray<>(RANKS);
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (TestRanks ranks = GpuFixture.ranks()) {
                CollectivesException e = assertThrows(
                        CollectivesException.class,
                        () -> ranks.run(ctx -> {
                            try (DeviceBuffer buffer =
                                    ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1 << 20)) {
                                ctx.comm().allReduce(buffer, buffer, 1, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                                ctx.stream().synchronize();
                                if (ctx.rank() == 0) {
                                    throw new IllegalStateException("rank 0 gives up before the collective");
                                }
                                ctx.comm()
                                        .allReduce(
                                                buffer, buffer, 1 << 20, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                                ctx.stream().synchronize();
                            } catch (Throwable t) {
                                failed.set(ctx.rank(), t);
                                throw t;
                            }
                        }));
                System.out.println("abort: " + e.getMessage());
                ranks.here().forEach(r -> {
                    assertNotNull(failed.get(r), "rank " + r + " failed too, instead of hanging");
                    if (r == 0) {
                        assertEquals(0, e.rank(), "rank 0 failed first");
                        assertInstanceOf(IllegalStateException.class, failed.get(r));
                    } else {
                        assertInstanceOf(CollectivesException.class, failed.get(r));
                    }
                });
                // every rank's communicator refuses work now: the cluster's, or the aborted one of this process
                assertThrows(
                        CollectivesException.class,
                        () -> ranks.run(ctx -> ctx.comm().createStream().close()));
            }
        });
    }
}
