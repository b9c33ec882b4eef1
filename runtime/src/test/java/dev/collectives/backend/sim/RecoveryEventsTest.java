package dev.collectives.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.RecoveryEvents;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The JFR recovery event on sim: committed when the recovery ends, with its kind, outcome and phases. */
@Timeout(60)
class RecoveryEventsTest {
    @Test
    void aShrinkAfterAnAbortEndsAtTheFirstBindOnTheSurvivorsCommunicator() {
        CountDownLatch aborted = new CountDownLatch(1);
        List<RecordedEvent> events = RecoveryEvents.during(() -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
                cluster.run(ctx -> {
                    if (ctx.rank() == 2) {
                        ctx.comm().abort();
                        aborted.countDown();
                        return;
                    }
                    aborted.await();
                    try (Communicator survivors = ctx.comm().shrink(2)) {
                        RecoveryEvents.bindOn(survivors);
                    }
                });
            }
        });

        assertEquals(2, events.size(), events.toString());
        List<RecordedEvent> byRank = events.stream()
                .sorted(Comparator.comparingInt(e -> e.getInt("rank")))
                .toList();
        for (int r = 0; r < 2; r++) {
            RecordedEvent event = byRank.get(r);
            assertEquals(
                    "shrink recovered on rank " + r + ": 3 -> 2 ranks, excluded [2], bound",
                    RecoveryEvents.summary(event));
            assertNull(event.getString("failure"));
            Instant heard = event.getInstant("heardAt");
            assertNotEquals(Instant.EPOCH, heard, "the abort was heard");
            assertTrue(!heard.isAfter(event.getStartTime().plusMillis(1)), heard + " after " + event.getStartTime());
            assertTrue(event.getDuration("heardToCommunicator").compareTo(Duration.ZERO) > 0);
            assertTrue(event.getDuration("communicatorToBound").compareTo(Duration.ZERO) > 0);
        }
    }

    @Test
    void aShrinkWhileEveryRankIsAliveHeardOfNoFailureAndEndsWhenItsCommunicatorCloses() {
        List<RecordedEvent> events = RecoveryEvents.during(() -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
                cluster.run(ctx -> {
                    if (ctx.rank() == 0) {
                        ctx.comm().shrink(1).close();
                    }
                });
            }
        });

        assertEquals(1, events.size(), events.toString());
        RecordedEvent event = events.get(0);
        assertEquals(
                "shrink recovered on rank 0: 2 -> 1 ranks, excluded [1], not bound", RecoveryEvents.summary(event));
        assertEquals(Instant.EPOCH, event.getInstant("heardAt"));
    }

    @Test
    void aReformThatCannotBeEndsFailedSayingWhy() {
        List<RecordedEvent> events = RecoveryEvents.during(() -> {
            try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
                Communicator comm = cluster.communicator(0);
                assertThrows(CollectivesException.class, () -> comm.reform(Duration.ofSeconds(1)));
            }
        });

        assertEquals(1, events.size(), events.toString());
        RecordedEvent event = events.get(0);
        assertEquals("replace failed on rank 0: 2 -> 0 ranks, excluded [], not bound", RecoveryEvents.summary(event));
        assertTrue(event.getString("failure").contains("reform: "), event.getString("failure"));
    }
}
