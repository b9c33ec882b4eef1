package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.runtime.RendezvousEndpoint;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Separate JVMs on this host, each finding its rank in a launcher's variables, meeting through a TCP port on
 * loopback or a directory, as processes of a real job do. Ranks other than 0 start first, so that rank 0's
 * (short) deadline is not spent waiting for JVMs to start.
 */
class MultiProcessRendezvousTest {
    private static final Duration LONG = Duration.ofSeconds(20);
    private static final Duration SHORT = Duration.ofSeconds(3);
    private static final String TOKEN = RankThreadsForTests.TOKEN;

    @TempDir
    Path shared;

    private final List<ChildRank> children = new ArrayList<>();
    private String endpoint;

    @AfterEach
    void killLeftovers() {
        children.forEach(ChildRank::close);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "file"})
    void processesLaunchedByDifferentConventionsExchangeTheIdAndAFingerprint(String kind) {
        endpoint(kind);
        // the same job seen through each launcher's variables: mpirun, srun, mpiexec (PMI)
        ChildRank slurm =
                start("rank 2", Map.of("SLURM_PROCID", "2", "SLURM_NTASKS", "3", "SLURM_LOCALID", "2"), LONG, TOKEN);
        ChildRank pmi = start("rank 1", Map.of("PMI_RANK", "1", "PMI_SIZE", "3"), LONG, TOKEN);
        ChildRank openMpi = start(
                "rank 0",
                Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "3", "OMPI_COMM_WORLD_LOCAL_RANK", "0"),
                LONG,
                TOKEN);
        String id = openMpi.await("ID ", LONG);
        assertEquals("ID ".length() + 2 * 128, id.length(), id);
        for (ChildRank rank : List.of(openMpi, pmi, slurm)) {
            assertEquals(id, rank.await("ID ", LONG));
            assertEquals("FINGERPRINTS 3 same", rank.await("FINGERPRINTS", LONG));
            rank.awaitExit(0);
        }
        assertTrue(slurm.await("STARTED", LONG).contains("rank 2 (SLURM_PROCID)"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "file"})
    void aProcessWithTheWrongTokenIsTurnedAwayAndRankZeroNamesItWithinItsDeadline(String kind) {
        endpoint(kind);
        ChildRank intruder = start("rank 1", ompi(1, 2), LONG, "a-token-of-some-other-job-entirely");
        intruder.await("STARTED", LONG);
        ChildRank root = start("rank 0", ompi(0, 2), SHORT, TOKEN);
        String refused = intruder.failure();
        assertTrue(
                refused.contains(
                        kind.equals("tcp") ? "presented a wrong job token" : "was not written with this job's token"),
                refused);
        String missing = root.failure();
        assertTrue(missing.contains("rank 0: rank 1 did not join at " + endpoint + " within 3 s"), missing);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "file"})
    void aDuplicateRankFailsEveryProcessNamingIt(String kind) {
        endpoint(kind);
        ChildRank first = start("rank 1", ompi(1, 3), LONG, TOKEN);
        ChildRank second = start("rank 1 again", ompi(1, 3), LONG, TOKEN);
        first.await("STARTED", LONG);
        second.await("STARTED", LONG);
        ChildRank root = start("rank 0", ompi(0, 3), LONG, TOKEN);
        root.await("FAILED", LONG);
        ChildRank late = start("rank 2", ompi(2, 3), LONG, TOKEN); // told why, though rank 0 has failed
        for (ChildRank rank : List.of(root, first, second, late)) {
            String message = rank.failure();
            assertTrue(message.contains("duplicate rank 1"), message);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "file"})
    void withoutRankZeroTheOthersFailAtTheirDeadline(String kind) {
        endpoint(kind);
        Duration deadline = Duration.ofSeconds(2);
        ChildRank one = start("rank 1", ompi(1, 3), deadline, TOKEN);
        ChildRank two = start("rank 2", ompi(2, 3), deadline, TOKEN);
        assertTrue(one.failure().contains("rank 1: no rank 0 at " + endpoint + " within 2 s"));
        assertTrue(two.failure().contains("rank 2: no rank 0 at " + endpoint + " within 2 s"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "file"})
    void aProcessKilledMidwayFailsTheOthersNamingIt(String kind) {
        endpoint(kind);
        // tcp: rank 0 watches every connection, so it fails as soon as the process dies, long before its deadline;
        // file: nothing tells of a death, so rank 0 fails at its (short) deadline
        Duration deadline = kind.equals("tcp") ? LONG : SHORT;
        ChildRank one = start("rank 1", ompi(1, 3), LONG, TOKEN);
        ChildRank doomed = start("rank 2", ompi(2, 3), LONG, TOKEN, "hang-after-broadcast");
        one.await("STARTED", LONG);
        doomed.await("STARTED", LONG);
        ChildRank root = start("rank 0", ompi(0, 3), deadline, TOKEN);
        doomed.await("WAITING", LONG);
        doomed.kill();
        String rootMessage = root.failure();
        String oneMessage = one.failure(); // told by rank 0, well before its own deadline
        assertTrue(oneMessage.contains("rank 0 ended the job: rank 2"), oneMessage);
        if (kind.equals("tcp")) {
            assertTrue(
                    rootMessage.contains("rank 0: rank 2 at /127.0.0.1:")
                            && rootMessage.contains("is gone: its connection ended during allgather #2"),
                    rootMessage);
            assertTrue(oneMessage.contains("rank 0 ended the job: rank 2 at /127.0.0.1:"), oneMessage);
        } else {
            assertTrue(
                    rootMessage.contains(
                            "rank 0: rank 2 did not take part in allgather #2 at " + endpoint + " within 3 s"),
                    rootMessage);
            assertTrue(
                    oneMessage.contains("rank 0 ended the job: rank 2 did not take part in allgather #2"), oneMessage);
        }
    }

    /**
     * Rank 0 fails at once (without a watch on rank 1 it would wait out its 20 s for rank 2), and its process exits
     * (through {@code System.exit}); yet rank 2, started after that, is answered with the cause at once, not left
     * to retry a closed port until its own deadline.
     */
    @Test
    void aProcessKilledWhileOthersAreStillJoiningFailsRankZeroAtOnceAndTheLateRankIsToldWhy() {
        endpoint("tcp");
        ChildRank doomed = start("rank 1", ompi(1, 3), LONG, TOKEN);
        ChildRank root = start("rank 0", ompi(0, 3), LONG, TOKEN);
        doomed.await("JOINED", LONG);
        doomed.kill();
        assertLateRankToldWhy(root, "is gone: its connection ended while the ranks were joining");
    }

    /** As a process killed while joining, for a member that announces a message of 2^31-1 bytes. */
    @Test
    void aMemberAnnouncingAnOversizedMessageWhileOthersAreStillJoiningFailsEveryRankNamingIt() throws IOException {
        endpoint("tcp");
        ChildRank root = start("rank 0", ompi(0, 3), LONG, TOKEN);
        try (Socket member = RankThreadsForTests.admittedAs(
                RendezvousEndpoint.parse(endpoint).port(), 1, 3)) {
            RankThreadsForTests.announce(member, Integer.MAX_VALUE);
        }
        assertLateRankToldWhy(root, "sent a message of 2147483647 bytes, above the limit of 65536");
    }

    /**
     * Rank 0 failed because rank 1 did as {@code cause} says while rank 2 had not joined: rank 2, started now, is
     * told that cause and its culprit, and rank 0's process exits once it has been.
     */
    private void assertLateRankToldWhy(ChildRank root, String cause) {
        String rootMessage = root.await("FAILED", LONG);
        // rank 0 fails naming rank 1 and its cause, whether its own member was in (the job ended) or still being
        // admitted (it was turned away, the job having ended)
        assertTrue(rootMessage.contains("rank 0: ") && rootMessage.contains("rank 1 at /127.0.0.1:"), rootMessage);
        assertTrue(rootMessage.contains(cause), rootMessage);
        String late = start("rank 2", ompi(2, 3), LONG, TOKEN).failure();
        assertTrue(
                late.contains("rank 2: rank 0 at " + endpoint + " turned rank 2 away: the job at " + endpoint
                                + " ended: rank 1 at /127.0.0.1:")
                        && late.contains(cause),
                late);
        root.awaitExit(3);
    }

    @Test
    void rankZeroKilledInsideAnOperationFailsTheOthersAtOnceNamingIt() {
        endpoint("tcp");
        ChildRank one = start("rank 1", ompi(1, 3), LONG, TOKEN);
        ChildRank two = start("rank 2", ompi(2, 3), LONG, TOKEN);
        ChildRank root = start("rank 0", ompi(0, 3), LONG, TOKEN, "hang-after-broadcast");
        root.await("WAITING", LONG);
        one.await("ID ", LONG);
        two.await("ID ", LONG);
        root.kill();
        for (ChildRank rank : List.of(one, two)) {
            String message = rank.failure();
            assertTrue(
                    message.contains("rank 0 at " + endpoint + " is gone: the connection ended during allgather #2"),
                    message);
        }
    }

    private void endpoint(String kind) {
        endpoint = kind.equals("tcp")
                ? "tcp://127.0.0.1:" + RankThreadsForTests.freePort()
                : "file:" + shared.resolve("rendezvous");
    }

    private static Map<String, String> ompi(int rank, int size) {
        return Map.of("OMPI_COMM_WORLD_RANK", String.valueOf(rank), "OMPI_COMM_WORLD_SIZE", String.valueOf(size));
    }

    private ChildRank start(String name, Map<String, String> launcher, Duration timeout, String token, String... args) {
        Map<String, String> variables = new HashMap<>(launcher);
        variables.put("COLLECTIVES_RENDEZVOUS", endpoint);
        variables.put("COLLECTIVES_JOB_TOKEN", token);
        variables.put("COLLECTIVES_BOOTSTRAP_TIMEOUT", timeout.toMillis() + "ms");
        ChildRank child = ChildRank.start(name, variables, args);
        children.add(child);
        return child;
    }
}
