package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * A process's members share one thread for their connections and their beats, however many there are: the callers'
 * own threads wait for the answers, and no thread is kept per member, watched or not.
 */
class MemberLoopTest {
    private static final Duration LONG = Duration.ofSeconds(60);

    @Test
    void sixtyFourMembersOfOneProcessRunOneMemberThreadWhileTheyGatherAndWatch() {
        int size = 64;
        String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();
        CountDownLatch watching = new CountDownLatch(size);
        CountDownLatch counted = new CountDownLatch(1);
        List<RankThreadsForTests.Outcome<List<String>>> outcomes = RankThreadsForTests.run(size, rank -> () -> {
            try (Rendezvous rendezvous =
                    RankThreadsForTests.bootstrap(endpoint, rank, size, LONG).rendezvous()) {
                byte[][] values = rendezvous.allGather(new byte[] {(byte) rank});
                assertArrayEquals(new byte[] {(byte) (size - 1)}, values[size - 1]);
                assertTrue(rendezvous.watch(cause -> {}));
                watching.countDown();
                List<String> threads = List.of();
                if (rank == 0) {
                    await(watching);
                    threads = memberThreads();
                    counted.countDown();
                } else {
                    await(counted); // every member is open and watched while rank 0 counts
                }
                return threads;
            }
        });
        assertEquals(List.of("collectives-member-loop"), outcomes.get(0).get());
    }

    /** The threads of this process that serve members (beside those of the server, and the callers'). */
    private static List<String> memberThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.startsWith("collectives-") && !name.startsWith("collectives-rendezvous-server"))
                .filter(name -> !name.startsWith("collectives-bootstrap-watchdog"))
                // news of another test's job may still be told, or its thread be about to end: none is kept per member
                .filter(name -> !name.equals("collectives-job-news"))
                .sorted()
                .toList();
    }
}
