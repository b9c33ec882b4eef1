package dev.collectives.examples.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * [SYNC host-copy] on a pipeline's buffer: the message names the buffer as the pipeline declares it, not only the
 * address of its memory.
 */
class HostCopyRaceTest {
    @CollectivePipeline(registration = Registration.NONE)
    interface Summed {
        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer grads();

        @Buffer(type = DataType.FLOAT32, count = 8)
        DeviceBuffer sums();

        @AllReduce(send = "grads", recv = "sums", count = 8, op = ReduceOp.SUM)
        void step();
    }

    @Test
    void aCopyThatRacesQueuedWorkNamesThePipelinesBuffer() {
        CountDownLatch copied = new CountDownLatch(1);
        AtomicReference<CollectivesException> race = new AtomicReference<>();
        Ranks.run(2, rank -> {
            try (var p = CollectiveHostCopyRaceTest_Summed.bind(rank.comm(), rank.stream())) {
                if (rank.rank() == 1) {
                    copied.await(); // rank 0's allreduce stays queued, waiting for this rank, until it has copied
                }
                p.step();
                if (rank.rank() == 0) {
                    race.set(assertThrows(
                            CollectivesException.class, () -> p.sums().copyToHost(new float[8])));
                    copied.countDown();
                }
                rank.stream().synchronize();
            }
        });
        String message = race.get().getMessage();
        assertTrue(
                message.startsWith("rank 0: [SYNC host-copy] copyToHost of bytes [0, 32) of buffer sums of "
                        + "dev.collectives.examples.e2e.HostCopyRaceTest.Summed (MEM_ALLOC memory at 0x"),
                message);
        assertTrue(message.contains("races allReduce"), message);
        assertTrue(
                message.endsWith("call stream.synchronize() before the copy (see docs/rules.md#sync-host-copy)"),
                message);
        assertEquals(1, message.lines().count(), message);
    }
}
