package dev.collectives.tools.peers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Registration;
import dev.collectives.backend.sim.SimBackend;
import dev.collectives.examples.Check;
import dev.collectives.runtime.LocalCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The ops of a peers job and their expected results, with every rank a thread on sim: what a Java rank of a job with
 * CuPy ranks computes and checks is right when every rank does the same.
 */
class PeersOpsTest {
    @ParameterizedTest(name = "{0} at {1} ranks")
    @CsvSource({"NONE, 2", "LOCAL, 2", "GRAPH, 2", "NONE, 4", "GRAPH, 4"})
    void everyResultIsRightOnEveryRankOverTheIterations(Registration mode, int ranks) {
        try (LocalCluster cluster = new SimBackend().local(ranks)) {
            cluster.run(rank -> {
                try (PeersOps ops = PeersOps.bind(mode, rank.comm(), rank)) {
                    for (int it = 0; it < PeersOps.ITERATIONS; it++) {
                        Check check = ops.iteration(rank, it);
                        assertTrue(check.isOk(), check.text());
                    }
                }
            });
        }
    }
}
