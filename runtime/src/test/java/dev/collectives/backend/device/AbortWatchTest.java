package dev.collectives.backend.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A native abort that blocks (as {@code ncclCommAbort} can while a graph's kernels wait on a dead peer) must neither
 * keep the caller waiting nor pass unnoticed: each policy, with an abort that returns only when the test lets it.
 */
class AbortWatchTest {
    private static final String WHAT = "ncclCommAbort of nccl rank 1/2 on device 0";
    /** Long enough never to pass before the test has looked, short enough for the overdue cases. */
    private static final Duration DEADLINE = Duration.ofMillis(200);

    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger halted = new AtomicInteger(-1);
    private final CountDownLatch haltCalled = new CountDownLatch(1);

    @AfterEach
    void releaseTheBlockedAbort() {
        release.countDown();
    }

    private int blockingAbort() {
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private void halt(int status) {
        halted.set(status);
        haltCalled.countDown();
    }

    @Test
    void anAbortThatReturnsInTimeGivesItsResultAndNothingElseHappens() {
        AbortWatch watch = new AbortWatch(Duration.ofSeconds(60), AbortWatch.Policy.EXIT, this::halt);
        List<LogRecord> records = LogCapture.capture(
                "dev.collectives.device",
                Level.ALL,
                () -> assertEquals(OptionalInt.of(7), watch.awaitWithin(watch.start(WHAT, () -> 7))));
        assertTrue(records.isEmpty(), records.toString());
        assertEquals(-1, halted.get());
    }

    @Test
    void theCallerIsNotKeptWaitingByABlockedAbort() {
        AbortWatch watch = new AbortWatch(Duration.ofSeconds(60), AbortWatch.Policy.REPORT, this::halt);
        CompletableFuture<Integer> done = watch.start(WHAT, this::blockingAbort).returned();
        assertFalse(done.isDone()); // start returned while the abort is still blocked on its own thread
        release.countDown();
        assertEquals(0, done.join());
    }

    @Test
    void reportLogsAnErrorNamingTheAbortAndTheSettingsAndLeavesTheProcessAlone() throws InterruptedException {
        AbortWatch watch = new AbortWatch(DEADLINE, AbortWatch.Policy.REPORT, this::halt);
        List<LogRecord> records = LogCapture.capture(
                "dev.collectives.device",
                Level.ALL,
                () -> assertEquals(OptionalInt.empty(), watch.awaitWithin(watch.start(WHAT, this::blockingAbort))));
        assertEquals(1, records.size(), records.toString());
        assertEquals(Level.SEVERE, records.get(0).getLevel());
        String message = records.get(0).getMessage();
        assertTrue(
                message.startsWith(WHAT + " has not returned within 0.2 s (collectives.device.abortTimeoutSeconds)"
                        + "; the device memory and connections of its communicator stay held until the process ends"),
                message);
        assertTrue(
                message.endsWith("set collectives.device.abortPolicy=exit to have it exit with status 134"), message);
        assertFalse(haltCalled.await(0, TimeUnit.SECONDS));
    }

    @Test
    void exitHaltsTheProcessWithItsStatusOnceTheAbortIsOverdue() throws InterruptedException {
        AbortWatch watch = new AbortWatch(DEADLINE, AbortWatch.Policy.EXIT, this::halt);
        List<LogRecord> records = LogCapture.capture("dev.collectives.device", Level.ALL, () -> {
            watch.start(WHAT, this::blockingAbort);
            try {
                assertTrue(haltCalled.await(60, TimeUnit.SECONDS), "the policy never applied");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        assertEquals(AbortWatch.EXIT_STATUS, halted.get());
        assertEquals(1, records.size(), records.toString());
        assertTrue(
                records.get(0)
                        .getMessage()
                        .endsWith("; the process exits with status 134 " + "(collectives.device.abortPolicy=exit)"),
                records.get(0).getMessage());
    }

    @Test
    void anUnknownPolicyIsNamedWithTheChoices() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> AbortWatch.Policy.parse("kill"));
        assertEquals("collectives.device.abortPolicy is report or exit, not 'kill'", e.getMessage());
        assertEquals(AbortWatch.Policy.EXIT, AbortWatch.Policy.parse(" Exit "));
    }
}
