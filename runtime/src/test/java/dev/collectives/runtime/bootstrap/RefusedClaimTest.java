package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A claim with a wrong job token, made while ranks of a job served by a {@link JobServer} wait for the others:
 * it never ends the job, every waiting rank logs it at once, and a job that then times out names it.
 */
class RefusedClaimTest {
    private static final String WRONG_TOKEN = "not-this-jobs-token-0123456789abcdef";

    private final int port = RankThreadsForTests.freePort();
    private final String endpoint = "tcp://127.0.0.1:" + port;
    private final Logger logger = Logger.getLogger("dev.collectives.bootstrap");
    /** Counted down by each warning that the server turned a claim away. */
    private final CountDownLatch logged = new CountDownLatch(2);

    private final List<String> warnings = new CopyOnWriteArrayList<>();

    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel() == Level.WARNING && record.getMessage().contains("turned a claim away")) {
                warnings.add(record.getMessage());
                logged.countDown();
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    private boolean parentHandlers;

    @BeforeEach
    void listen() {
        parentHandlers = logger.getUseParentHandlers();
        logger.setUseParentHandlers(false); // the warnings are this test's to read, not the console's
        logger.addHandler(handler);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(handler);
        logger.setUseParentHandlers(parentHandlers);
    }

    @Test
    void everyWaitingRankLogsAClaimWithAWrongTokenAtOnceAndTheJobGoesOn() throws Exception {
        Duration timeout = Duration.ofSeconds(60);
        try (JobServer server =
                JobServer.start(RendezvousEndpoint.parse(endpoint), 3, RankThreadsForTests.TOKEN, timeout)) {
            for (RankThreadsForTests.Outcome<Integer> outcome : jobWithAWrongClaim(timeout, true)) {
                assertEquals(3, outcome.get());
            }
            assertEquals(2, warnings.size(), warnings.toString());
            for (String warning : warnings) {
                assertTrue(
                        warning.matches("the rendezvous server at " + endpoint + " turned a claim away: a connection "
                                + "from /127.0.0.1:\\d+ claiming rank 2 presented a wrong job token"),
                        warning);
            }
            assertEquals(Optional.empty(), server.awaitEnd());
        }
    }

    @Test
    void aJobThatTimesOutNamesTheClaimWithAWrongToken() throws Exception {
        Duration timeout = Duration.ofSeconds(2);
        try (JobServer server =
                JobServer.start(RendezvousEndpoint.parse(endpoint), 3, RankThreadsForTests.TOKEN, timeout)) {
            List<RankThreadsForTests.Outcome<Integer>> outcomes = jobWithAWrongClaim(timeout, false);
            String verdict = server.awaitEnd().orElseThrow();
            assertTrue(
                    verdict.matches("rank 2 did not join at " + endpoint + " within 2 s; turned away: a connection "
                            + "from /127.0.0.1:\\d+ claiming rank 2 presented a wrong job token"),
                    verdict);
            for (int rank = 0; rank < 2; rank++) {
                assertTrue(
                        outcomes.get(rank).message().contains(verdict),
                        outcomes.get(rank).message());
            }
        }
    }

    /**
     * Ranks 0 and 1 join and allgather; once both have joined, a claim for rank 2 with the wrong token comes, and
     * then, where {@code rankTwoJoins}, once both logged it, rank 2 itself. Each outcome: how many values the rank's
     * allgather gave.
     */
    private List<RankThreadsForTests.Outcome<Integer>> jobWithAWrongClaim(Duration timeout, boolean rankTwoJoins) {
        CountDownLatch joined = new CountDownLatch(2);
        return RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 2) {
                RankThreadsForTests.await(joined);
                String refused = RankThreadsForTests.claimWith(WRONG_TOKEN, port, 2, 3);
                assertTrue(refused.contains("claiming rank 2 presented a wrong job token"), refused);
                if (!rankTwoJoins) {
                    return 0;
                }
                assertTrue(logged.await(60, TimeUnit.SECONDS), "the waiting ranks logged " + warnings);
            }
            try (Rendezvous rendezvous = RankThreadsForTests.memberOfServer(endpoint, rank, 3, timeout)
                    .build()
                    .rendezvous()) {
                joined.countDown();
                return rendezvous.allGather(new byte[] {(byte) rank}).length;
            }
        });
    }
}
