package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every death in a watched job reaches every survivor, not only the first: after the survivors of one death met and
 * watch again (their new communicator does), the next death is news to them too, whether rank 0 or a server of its
 * own serves the rendezvous; and a rank that has not heard of a death when rank 0 closes the job hears of it then.
 */
class EveryDeathIsNewsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @ParameterizedTest(name = "rendezvousServer={0}")
    @ValueSource(strings = {"rank0", "standalone"})
    void theSurvivorsOfOneDeathWhoWatchAgainHearOfTheNext(String server) throws Exception {
        int port = RankThreadsForTests.freePort();
        String endpoint = "tcp://127.0.0.1:" + port;
        CountDownLatch watching = new CountDownLatch(2);
        CountDownLatch watchingAgain = new CountDownLatch(2);
        try (JobServer standalone = server.equals("standalone")
                ? JobServer.start(RendezvousEndpoint.parse(endpoint), 4, RankThreadsForTests.TOKEN, TIMEOUT)
                : null) {
            List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(4, rank -> () -> {
                if (rank >= 2) {
                    // rank 3 "dies" once the others watch (and every rank was taken in), rank 2 once they watch
                    // again: a connection ends unsaid
                    try (Socket doomed = RankThreadsForTests.admittedAs(port, rank, 4)) {
                        await(rank == 3 ? watching : watchingAgain);
                        if (standalone != null) {
                            standalone.awaitJoined();
                        }
                    }
                    return "gone";
                }
                Bootstrap bootstrap = Bootstrap.builder()
                        .rank(rank)
                        .size(4)
                        .rendezvous(endpoint)
                        .timeout(TIMEOUT)
                        .jobToken(RankThreadsForTests.TOKEN)
                        .option("rendezvousServer", server)
                        .build();
                try (Rendezvous rendezvous = bootstrap.rendezvous()) {
                    BlockingQueue<String> heard = new LinkedBlockingQueue<>();
                    assertTrue(rendezvous.watch(cause -> heard.offer(cause.text())));
                    watching.countDown();
                    String first = heard.poll(60, TimeUnit.SECONDS);
                    assertEquals(Optional.empty(), rendezvous.resumeAmongSurvivors());
                    assertTrue(rendezvous.watch(cause -> heard.offer(cause.text())));
                    watchingAgain.countDown();
                    String second = heard.poll(60, TimeUnit.SECONDS);
                    return first + " | " + second;
                }
            });
            for (int rank = 0; rank < 2; rank++) {
                assertTrue(
                        outcomes.get(rank)
                                .get()
                                .matches("rank 3 at /127\\.0\\.0\\.1:\\d+ is gone: its connection ended while the job"
                                        + " ran .* \\| rank 2 at /127\\.0\\.0\\.1:\\d+ is gone: its connection ended"
                                        + " while the job ran .*"),
                        "rank " + rank + ": " + outcomes.get(rank).get());
            }
        }
    }

    /**
     * Rank 0 closes the job while rank 1 has not heard of rank 2's death (it was not watching then, as between a
     * meeting of the survivors and its next watch): rank 1 hears of the death, not of a close that is no failure.
     */
    @Test
    void aRankThatHasNotHeardOfADeathWhenRankZeroClosesHearsOfIt() throws Exception {
        int port = RankThreadsForTests.freePort();
        String endpoint = "tcp://127.0.0.1:" + port;
        CountDownLatch running = new CountDownLatch(2);
        CountDownLatch closed = new CountDownLatch(1);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 2) {
                try (Socket doomed = RankThreadsForTests.admittedAs(port, rank, 3)) {
                    await(running);
                }
                return "gone";
            }
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            try (Rendezvous rendezvous =
                    RankThreadsForTests.bootstrap(endpoint, rank, 3, TIMEOUT).rendezvous()) {
                if (rank == 0) {
                    assertTrue(rendezvous.watch(cause -> heard.offer(cause.text())));
                    running.countDown();
                    String news = heard.poll(60, TimeUnit.SECONDS);
                    rendezvous.close();
                    closed.countDown();
                    return news;
                }
                running.countDown();
                await(closed);
                assertTrue(rendezvous.watch(cause -> heard.offer(cause.text())));
                return heard.poll(60, TimeUnit.SECONDS);
            }
        });
        for (int rank = 0; rank < 2; rank++) {
            assertTrue(
                    outcomes.get(rank)
                            .get()
                            .matches("rank 2 at /127\\.0\\.0\\.1:\\d+ is gone: its connection ended while the job ran"
                                    + " .*"),
                    "rank " + rank + ": " + outcomes.get(rank).get());
        }
    }
}
