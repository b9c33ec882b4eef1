package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.server.JobServer;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rendezvous served by a process of its own ({@link JobServer}): every rank, rank 0 too, joins it as a
 * member; its operations give what they give where rank 0 serves, and rank 0's death leaves the survivors a place to
 * meet again, where a replacement of rank 0 can join.
 */
class RendezvousServerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final int port = RankThreadsForTests.freePort();
    private final String endpoint = "tcp://127.0.0.1:" + port;
    private final JobServer server =
            JobServer.start(RendezvousEndpoint.parse(endpoint), 3, RankThreadsForTests.TOKEN, TIMEOUT);
    /** Counted down by each survivor once it watches the job, and once it heard of rank 0's death. */
    private final CountDownLatch watching = new CountDownLatch(2);

    private final CountDownLatch heardDeath = new CountDownLatch(2);

    @AfterEach
    void stopServer() {
        server.close();
    }

    private Bootstrap.Builder rank(int rank) {
        return RankThreadsForTests.memberOfServer(endpoint, rank, 3, TIMEOUT);
    }

    @Test
    void everyRankJoinsTheServerAndBroadcastsAndGathersAsWhereRankZeroServes() throws Exception {
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            try (Rendezvous rendezvous = rank(rank).build().rendezvous()) {
                byte[] id = rendezvous.broadcast(rank == 0 ? "unique id".getBytes(StandardCharsets.UTF_8) : null);
                rendezvous.agree("the backend", "nccl 2.28");
                return new String(id, StandardCharsets.UTF_8) + ", "
                        + gathered(rendezvous.allGather(new byte[] {(byte) (10 + rank)}));
            }
        });
        for (int rank = 0; rank < 3; rank++) {
            assertEquals("unique id, [10, 11, 12]", outcomes.get(rank).get(), "rank " + rank);
        }
        assertEquals(Optional.empty(), server.awaitEnd());
        assertEquals(List.of(), server.deaths());
    }

    @Test
    void aRankThatContributesAnotherSizeFailsTheOperationOnEveryRankNamingIt() {
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            try (Rendezvous rendezvous = rank(rank).build().rendezvous()) {
                rendezvous.allGather(new byte[rank == 2 ? 5 : 4]);
                return "gathered";
            }
        });
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(
                    "[bootstrap] rank " + rank
                            + ": rank 2 contributed 5 bytes to allgather #1, rank 0 4 bytes (the ranks called "
                            + "it with different sizes)",
                    outcomes.get(rank).message());
        }
    }

    @Test
    void theSurvivorsOfRankZerosDeathMeetAgainWithoutIt() throws Exception {
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 0) {
                dieOnceWatched();
                return "died";
            }
            try (Rendezvous survivor = survivorAfterRankZeroDied(rank)) {
                Rendezvous.Survivors survivors = survivor.allGatherOfSurvivors(new byte[] {(byte) (10 + rank)});
                assertNull(survivors.values()[0]);
                assertTrue(
                        survivors.goneReasons()[0].contains("is gone"),
                        survivors.goneReasons()[0]);
                return gathered(Arrays.copyOfRange(survivors.values(), 1, 3));
            }
        });
        assertEquals("[11, 12]", outcomes.get(1).get());
        assertEquals("[11, 12]", outcomes.get(2).get());
        assertEquals(Optional.empty(), server.awaitEnd());
        assertEquals(1, server.deaths().size());
        assertTrue(
                server.deaths().get(0).startsWith("rank 0 at /127.0.0.1:"),
                server.deaths().get(0));
    }

    @Test
    void aReplacementOfRankZeroJoinsAndItsBroadcastReachesTheSurvivors() throws Exception {
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 0) {
                dieOnceWatched();
                await(heardDeath);
                try (Rendezvous replacement =
                        rank(0).option("replacement", "true").build().rendezvous()) {
                    return afterReunion(replacement);
                }
            }
            try (Rendezvous survivor = survivorAfterRankZeroDied(rank)) {
                return afterReunion(survivor);
            }
        });
        for (int rank = 0; rank < 3; rank++) {
            assertEquals(
                    "replaced [0], new id from the replacement",
                    outcomes.get(rank).get(),
                    "rank " + rank);
        }
        assertEquals(Optional.empty(), server.awaitEnd());
    }

    @Test
    void ranksThatNeverJoinEndTheJobAndTheOthersHearWhy() throws Exception {
        int size = 3;
        try (JobServer shortServer = JobServer.start(
                RendezvousEndpoint.parse("tcp://127.0.0.1:" + RankThreadsForTests.freePort()),
                size,
                RankThreadsForTests.TOKEN,
                Duration.ofSeconds(1))) {
            String where = shortServer.endpoint().toString();
            List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(1, rank -> () -> {
                try (Rendezvous rendezvous = rank(0).rendezvous(where).build().rendezvous()) {
                    rendezvous.allGather(new byte[1]);
                    return "gathered";
                }
            });
            assertEquals(Optional.of("ranks 1, 2 did not join at " + where + " within 1 s"), shortServer.awaitEnd());
            assertEquals(
                    "[bootstrap] rank 0: the rendezvous server at " + where
                            + " ended the job: ranks 1, 2 did not join at " + where
                            + " within 1 s (reported by the rendezvous server at " + where + " during allgather #1)",
                    outcomes.get(0).message());
        }
    }

    @Test
    void ranksThatNeverArriveWhereTheOthersStallAreNamedToEveryWatcher() throws Exception {
        CountDownLatch allWatch = new CountDownLatch(3);
        List<RankThreadsForTests.Outcome<String>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            try (Rendezvous rendezvous = rank(rank).build().rendezvous()) {
                BlockingQueue<String> heard = new ArrayBlockingQueue<>(1);
                assertTrue(rendezvous.watch(cause -> heard.offer(cause.text())));
                allWatch.countDown();
                await(allWatch);
                if (rank < 2) {
                    rendezvous.stalled("its stream waited 300 s");
                }
                return heard.poll(60, TimeUnit.SECONDS);
            }
        });
        for (int rank = 0; rank < 3; rank++) {
            String heard = outcomes.get(rank).get();
            assertTrue(
                    heard != null
                            && heard.contains("ranks [2] did not arrive at the collective that ranks [0, 1] waited in "
                                    + "(each its stream waited 300 s)"),
                    "rank " + rank + " heard " + heard);
        }
        assertTrue(server.awaitEnd().orElseThrow().startsWith("ranks [2] did not arrive"));
    }

    @Test
    void anUnknownServerSettingIsRefusedNamingTheChoices() {
        BootstrapException e = assertThrows(
                BootstrapException.class,
                () -> rank(1).option("rendezvousServer", "rank1").build().rendezvous());
        assertTrue(
                e.getMessage()
                        .contains("COLLECTIVES_RENDEZVOUS_SERVER (or collectives.rendezvousServer) is rank0 (rank 0 "
                                + "serves the rendezvous) or standalone (a rendezvous server of its own, which every"
                                + " rank joins), not 'rank1'"),
                e.getMessage());
    }

    /**
     * Rank 0 joins, then its process "dies" once the others watch and the server took every rank in: its connection
     * ends without a word.
     */
    private void dieOnceWatched() throws Exception {
        try (Socket doomed = RankThreadsForTests.admittedAs(port, 0, 3)) {
            await(watching);
            server.awaitJoined();
        }
    }

    /** Rank 0 of 3 dies; the survivors resume once they heard of it, which {@code heardDeath} counts. */
    private Rendezvous survivorAfterRankZeroDied(int rank) throws Exception {
        Rendezvous rendezvous = rank(rank).build().rendezvous();
        BlockingQueue<String> heard = new ArrayBlockingQueue<>(1);
        assertTrue(rendezvous.watch(cause -> heard.offer(cause.text())));
        watching.countDown();
        String death = heard.poll(60, TimeUnit.SECONDS);
        assertTrue(death != null && death.startsWith("rank 0 at /127.0.0.1:"), "rank " + rank + " heard " + death);
        assertTrue(death.contains("is gone: its connection ended while the job ran"), death);
        assertEquals(Optional.empty(), rendezvous.resumeAmongSurvivors());
        heardDeath.countDown();
        return rendezvous;
    }

    private static String afterReunion(Rendezvous rendezvous) {
        int[] replaced = rendezvous.reunite(TIMEOUT);
        byte[] id = rendezvous.broadcast(
                rendezvous.rank() == 0 ? "new id from the replacement".getBytes(StandardCharsets.UTF_8) : null);
        return "replaced " + Arrays.toString(replaced) + ", " + new String(id, StandardCharsets.UTF_8);
    }

    private static String gathered(byte[][] values) {
        List<Integer> all = new ArrayList<>();
        Arrays.stream(values).forEach(value -> all.add((int) value[0]));
        return all.toString();
    }
}
