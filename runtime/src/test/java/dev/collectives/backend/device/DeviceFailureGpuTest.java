package dev.collectives.backend.device;

import static dev.collectives.backend.device.GpuFixture.RANKS;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.internal.Fingerprint;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** Failures end on every rank with an exception, never a hang. */
@Tag("gpu")
class DeviceFailureGpuTest {
    @Test
    void r14RanksBindingDifferentPipelinesFailOnBothGpus() {
        AtomicReferenceArray<CollectivesException> seen = new AtomicReferenceArray<>(RANKS);
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (LocalCluster cluster = GpuFixture.backend().local(RANKS)) {
                cluster.run(ctx -> {
                    Fingerprint fingerprint = Fingerprint.builder("Pipeline")
                            .add("op 0", "allReduce sendbuff+0 recvbuff+0 count=" + (ctx.rank() == 0 ? 1024 : 2048))
                            .build();
                    try {
                        fingerprint.exchange(ctx.comm(), ctx.stream());
                    } catch (CollectivesException e) {
                        seen.set(ctx.rank(), e);
                    }
                });
            }
        });
        for (int r = 0; r < RANKS; r++) {
            CollectivesException e = seen.get(r);
            assertNotNull(e, "rank " + r + " did not fail");
            assertEquals(Rule.R14_SHAPE, e.rule());
            assertTrue(e.getMessage().contains("count=1024") && e.getMessage().contains("count=2048"),
                    e.getMessage());
        }
    }

    @Test
    void aFailingRankAbortsTheOthersWhichStopWaiting() {
        // rank 0 throws once the other ranks (threads of this process) are about to enter the collective, where they
        // wait for rank 0. They count down just before it, as no rank can signal from inside the blocking native
        // call: the abort may find a rank just short of it (its call then refuses the aborted communicator) rather
        // than waiting in it; either way that rank must fail, not hang
        CountDownLatch othersAtTheCollective = new CountDownLatch(RANKS - 1);
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            try (LocalCluster cluster = GpuFixture.backend().local(RANKS)) {
                CollectivesException e = assertThrows(CollectivesException.class, () -> cluster.run(ctx -> {
                    try (DeviceBuffer buffer = ctx.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1 << 20)) {
                        if (ctx.rank() == 0) {
                            othersAtTheCollective.await();
                            throw new IllegalStateException("rank 0 gives up before the collective");
                        }
                        othersAtTheCollective.countDown();
                        ctx.comm().allReduce(buffer, buffer, 1 << 20, DataType.FLOAT32, ReduceOp.SUM, ctx.stream());
                        ctx.stream().synchronize();
                    }
                }));
                assertEquals(0, e.rank());
                assertEquals(1, e.getSuppressed().length, "rank 1 failed too, instead of hanging");
                System.out.println("abort: " + e.getMessage() + " / " + e.getSuppressed()[0].getMessage());
                assertThrows(CollectivesException.class, () -> cluster.run(ctx -> { }));
            }
        });
    }
}
