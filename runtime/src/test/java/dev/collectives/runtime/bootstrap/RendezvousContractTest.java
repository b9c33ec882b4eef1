package dev.collectives.runtime.bootstrap;

import static dev.collectives.runtime.bootstrap.RankThreadsForTests.bootstrap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.bootstrap.RankThreadsForTests.Outcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * What every rendezvous must do, run with ranks as threads of this JVM (the process tests repeat the main cases
 * with separate JVMs). Subclasses give the endpoint and the wording that differs between TCP and files.
 */
abstract class RendezvousContractTest {
    static final Duration GENEROUS = Duration.ofSeconds(20);
    static final Duration SHORT = Duration.ofMillis(1500);

    /** A fresh endpoint for one test. */
    abstract String endpoint();

    /** What a rank with the wrong token is told. */
    abstract String wrongTokenMessage();

    /** What rank 0 says when rank 2 leaves after the broadcast. */
    abstract String goneMessage();

    @Test
    void ranksExchangeTheUniqueIdAndFingerprints() {
        String endpoint = endpoint();
        byte[] id = new byte[128];
        Arrays.fill(id, (byte) 0x5a);
        List<Outcome<byte[][]>> outcomes = RankThreadsForTests.run(4, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 4, GENEROUS).rendezvous()) {
                byte[] received = rendezvous.broadcast(rank == 0 ? id : null);
                byte[][] fingerprints =
                        rendezvous.allGather(("fingerprint of rank " + rank).getBytes(StandardCharsets.UTF_8));
                rendezvous.agree("backend", "sim");
                byte[][] again = rendezvous.allGather(new byte[] {(byte) rank});
                assertEquals(3, again[3][0]);
                return new byte[][] {received, fingerprints[0], fingerprints[3]};
            }
        });
        for (Outcome<byte[][]> outcome : outcomes) {
            assertArrayEquals(id, outcome.get()[0]);
            assertEquals("fingerprint of rank 0", new String(outcome.get()[1], StandardCharsets.UTF_8));
            assertEquals("fingerprint of rank 3", new String(outcome.get()[2], StandardCharsets.UTF_8));
        }
    }

    @Test
    void ranksMayStartBeforeRankZero() {
        String endpoint = endpoint();
        CountDownLatch othersStarting = new CountDownLatch(2);
        List<Outcome<byte[]>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            if (rank == 0) {
                RankThreadsForTests.await(othersStarting);
            } else {
                othersStarting.countDown();
            }
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 3, GENEROUS).rendezvous()) {
                return rendezvous.broadcast(rank == 0 ? new byte[] {1, 2, 3} : null);
            }
        });
        outcomes.forEach(o -> assertArrayEquals(new byte[] {1, 2, 3}, o.get()));
    }

    @Test
    void aRankWithTheWrongTokenIsTurnedAwayAndRankZeroNamesIt() {
        String endpoint = endpoint();
        List<Outcome<byte[]>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            String token = rank == 1 ? "not-the-job-token-at-all" : RankThreadsForTests.TOKEN;
            // rank 1 is told at once: its long timeout is never reached
            Duration timeout = rank == 1 ? GENEROUS : SHORT;
            try (Rendezvous rendezvous =
                    bootstrap(endpoint, rank, 2, timeout, token).rendezvous()) {
                return rendezvous.broadcast(new byte[1]);
            }
        });
        assertTrue(
                outcomes.get(1).message().contains(wrongTokenMessage()),
                outcomes.get(1).message());
        String root = outcomes.get(0).message();
        assertTrue(root.contains("rank 0: rank 1 did not join at " + endpoint + " within 1.5 s"), root);
        outcomes.forEach(o -> assertInstanceOf(BootstrapException.class, o.failure()));
    }

    @Test
    void aDuplicateRankFailsTheJobOnEveryRankNamingIt() {
        String endpoint = endpoint();
        int[] ranks = {0, 1, 1};
        CountDownLatch duplicatesStarting = new CountDownLatch(2);
        List<Outcome<byte[]>> outcomes = RankThreadsForTests.run(3, index -> () -> {
            if (index == 0) {
                RankThreadsForTests.await(duplicatesStarting);
            } else {
                duplicatesStarting.countDown();
            }
            try (Rendezvous rendezvous =
                    bootstrap(endpoint, ranks[index], 3, GENEROUS).rendezvous()) {
                return rendezvous.broadcast(new byte[1]);
            }
        });
        for (Outcome<byte[]> outcome : outcomes) {
            // at once: the timeout, 20 s, would have been named instead
            assertTrue(outcome.message().contains("duplicate rank 1"), outcome.message());
        }
    }

    @Test
    void withoutRankZeroTheOthersFailAtTheirDeadline() {
        String endpoint = endpoint();
        List<Outcome<Rendezvous>> outcomes = RankThreadsForTests.run(
                2, index -> () -> bootstrap(endpoint, index + 1, 3, SHORT).rendezvous());
        for (int i = 0; i < 2; i++) {
            String message = outcomes.get(i).message();
            assertTrue(message.contains("rank " + (i + 1) + ": no rank 0 at " + endpoint + " within 1.5 s"), message);
        }
    }

    @Test
    void aRankGoneMidwayFailsTheOthersNamingIt() {
        String endpoint = endpoint();
        List<Outcome<byte[][]>> outcomes = RankThreadsForTests.run(3, rank -> () -> {
            Duration timeout = rank == 2 ? GENEROUS : Duration.ofSeconds(3);
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 3, timeout).rendezvous()) {
                rendezvous.broadcast(new byte[] {42});
                if (rank == 2) {
                    return null; // leaves: closes its side without taking part in the allgather
                }
                return rendezvous.allGather(new byte[32]);
            }
        });
        String root = outcomes.get(0).message();
        assertTrue(root.contains(goneMessage()), root);
        assertTrue(outcomes.get(1).message().contains("rank 2"), outcomes.get(1).message());
    }

    @Test
    void contributionsOfDifferentLengthsFailTheAllGather() {
        String endpoint = endpoint();
        List<Outcome<byte[][]>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, GENEROUS).rendezvous()) {
                return rendezvous.allGather(new byte[rank == 0 ? 4 : 8]);
            }
        });
        for (Outcome<byte[][]> outcome : outcomes) {
            assertTrue(outcome.message().contains("contributed 8 bytes to allgather #1"), outcome.message());
        }
    }

    @Test
    void agreeNamesEachRanksValueWhenTheyDiffer() {
        String endpoint = endpoint();
        List<Outcome<Void>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, GENEROUS).rendezvous()) {
                rendezvous.agree("backend", rank == 0 ? "nccl 2.28.9" : "sim");
                return null;
            }
        });
        for (Outcome<Void> outcome : outcomes) {
            assertTrue(
                    outcome.message().contains("disagree on backend: rank 0: nccl 2.28.9; rank 1: sim"),
                    outcome.message());
        }
    }

    @Test
    void ranksThatDisagreeOnTheWorldSizeFail() {
        String endpoint = endpoint();
        // rank 1 is told at once: its long timeout is never reached
        List<Outcome<Rendezvous>> outcomes = RankThreadsForTests.run(
                2,
                rank -> () -> bootstrap(endpoint, rank, rank == 0 ? 2 : 3, rank == 0 ? SHORT : GENEROUS)
                        .rendezvous());
        String member = outcomes.get(1).message();
        assertTrue(member.contains("world size is"), member);
    }

    @Test
    void aFailedRendezvousStaysFailed() {
        String endpoint = endpoint();
        List<Outcome<String>> outcomes = RankThreadsForTests.run(2, rank -> () -> {
            try (Rendezvous rendezvous = bootstrap(endpoint, rank, 2, GENEROUS).rendezvous()) {
                try {
                    rendezvous.allGather(new byte[rank + 1]);
                } catch (BootstrapException first) {
                    return assertInstanceOf(
                                    BootstrapException.class,
                                    org.junit.jupiter.api.Assertions.assertThrows(
                                            BootstrapException.class, () -> rendezvous.broadcast(new byte[1])))
                            .getMessage();
                }
                return "no failure";
            }
        });
        outcomes.forEach(o -> assertTrue(o.get().contains("failed earlier"), o.get()));
    }
}
