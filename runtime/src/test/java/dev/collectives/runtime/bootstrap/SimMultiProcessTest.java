package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sim job whose ranks are separate JVMs on this host, meeting through a TCP rendezvous on loopback and moving
 * their data through it: the data of every kind of call, the checks of the in-process sim on every rank, and
 * failures (a rank killed, a rank that never comes) that reach every rank within the deadline.
 */
class SimMultiProcessTest {
    private static final Duration LONG = Duration.ofSeconds(60);
    private static final String TOKEN = RankThreadsForTests.TOKEN;

    private final List<ChildRank> children = new ArrayList<>();
    private final String endpoint = "tcp://127.0.0.1:" + RankThreadsForTests.freePort();

    @AfterEach
    void killLeftovers() {
        children.forEach(ChildRank::close);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void everyKindOfCallMovesTheRightDataBetweenProcesses(int size) {
        List<ChildRank> ranks = job(size, Map.of(), "ops");
        for (ChildRank rank : ranks) {
            for (String op : List.of("allReduce", "allGather", "reduceScatter", "broadcast", "reduce", "allToAll",
                    "send/recv")) {
                assertEquals("OK " + op + " data", rank.await("OK " + op + " data", LONG));
            }
            assertEquals("OK window true", rank.await("OK window", LONG));
            assertEquals("USAGE SimUsage[allocations=0, registrations=0, windows=0, graphs=0, graphExecs=0]",
                    rank.await("USAGE", LONG));
            rank.await("DONE", LONG);
            rank.awaitExit(0);
        }
    }

    /** Starts ranks {@code size - 1} down to 0 (rank 0 last, so that its deadline is not spent on JVM starts). */
    private List<ChildRank> job(int size, Map<String, String> settings, String mode) {
        List<ChildRank> ranks = new ArrayList<>();
        for (int r = size - 1; r >= 0; r--) {
            Map<String, String> variables = new HashMap<>(settings);
            variables.put("COLLECTIVES_RANK", String.valueOf(r));
            variables.put("COLLECTIVES_WORLD_SIZE", String.valueOf(size));
            variables.put("COLLECTIVES_RENDEZVOUS", endpoint);
            variables.put("COLLECTIVES_JOB_TOKEN", TOKEN);
            variables.putIfAbsent("COLLECTIVES_BOOTSTRAP_TIMEOUT", "30s");
            ChildRank child = ChildRank.start("rank " + r, SimRankProcess.class, variables, mode);
            children.add(child);
            ranks.add(0, child);
        }
        return ranks;
    }
}
