package dev.collectives.examples.e2e;

import static dev.collectives.examples.e2e.Ranks.assertFloats;
import static dev.collectives.examples.e2e.Ranks.ramp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.backend.sim.SimBackend;
import dev.collectives.backend.sim.SimCluster;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Stream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The seed's three examples (graph registration, local registration, one big block) at 2 and 4 ranks on sim. */
class SeedExamplesTest {
    /** Sum over ranks of {@code ramp(rank)[from + i]}, i < count. */
    private static float[] sumOfRamps(int ranks, int from, int count) {
        float[] sum = new float[count];
        for (int r = 0; r < ranks; r++) {
            float[] ramp = ramp(r, from + count);
            for (int i = 0; i < count; i++) {
                sum[i] += ramp[from + i];
            }
        }
        return sum;
    }

    /** Both seed allreduces: recvbuff[0, 1024) from sendbuff[0, 1024), recvbuff[2048, 3072) from sendbuff[1024, 2048). */
    private static void checkTwoAllReduces(int ranks, DeviceBuffer recvbuff) {
        float[] received = Ranks.read(recvbuff, 3072);
        float[] first = sumOfRamps(ranks, 0, 1024);
        float[] second = sumOfRamps(ranks, 1024, 1024);
        for (int i = 0; i < 1024; i++) {
            assertEquals(first[i], received[i], "recvbuff[" + i + "]");
            assertEquals(0f, received[1024 + i], "recvbuff[" + (1024 + i) + "] is not written");
            assertEquals(second[i], received[2048 + i], "recvbuff[" + (2048 + i) + "]");
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void seedGraphRegistration(int ranks) {
        Ranks.run(ranks, rank -> {
            Stream stream = rank.stream();
            CollectiveSeedPipelines_Graph pipeline = CollectiveSeedPipelines_Graph.bind(rank.comm(), stream);
            try (pipeline) {
                pipeline.sendbuff().copyFromHost(ramp(rank.rank(), 2048));
                pipeline.recvbuff().copyFromHost(new float[3072]);
                pipeline.step();
                stream.synchronize();
                checkTwoAllReduces(ranks, pipeline.recvbuff());
                pipeline.step(); // a replay gives the same sums
                stream.synchronize();
                checkTwoAllReduces(ranks, pipeline.recvbuff());
            }
            CollectivesException afterClose = assertThrows(CollectivesException.class, pipeline::step);
            assertEquals(Rule.R5_GRAPH_LIFETIME, afterClose.rule());
            assertTrue(afterClose.getMessage().contains("SeedPipelines.Graph is closed"), afterClose.getMessage());
            pipeline.close(); // idempotent
        });
    }

    @Test
    void seedGraphOnPeersConnectedLazilyRunsItsFirstCallEagerlyAndLaunchesItsGraphFromTheSecond() {
        int ranks = 2;
        try (SimCluster cluster =
                SimBackend.cluster().ranks(ranks).connectAtInit(false).build()) {
            cluster.run(rank -> {
                Stream stream = rank.stream();
                try (CollectiveSeedPipelines_Graph pipeline = CollectiveSeedPipelines_Graph.bind(rank.comm(), stream)) {
                    pipeline.sendbuff().copyFromHost(ramp(rank.rank(), 2048));
                    for (int call = 0; call < 3; call++) {
                        pipeline.recvbuff().copyFromHost(new float[3072]);
                        pipeline.step();
                        stream.synchronize();
                        checkTwoAllReduces(ranks, pipeline.recvbuff());
                    }
                    List<String> steps = rank.comm().flightRecord().entries().stream()
                            .filter(entry -> entry.step().equals("step"))
                            .map(entry -> entry.call().equals("graph")
                                    ? "graph " + entry.graphOps()
                                    : entry.call() + " op " + entry.op())
                            .toList();
                    String graph = "graph [allReduce(1024 x FLOAT32), allReduce(1024 x FLOAT32)]";
                    assertEquals(List.of("allReduce op 0", "allReduce op 1", graph, graph), steps);
                }
            });
        }
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void seedLocalRegistration(int ranks) {
        Ranks.run(ranks, rank -> {
            try (CollectiveSeedPipelines_Local pipeline =
                    CollectiveSeedPipelines_Local.bind(rank.comm(), rank.stream())) {
                pipeline.sendbuff().copyFromHost(ramp(rank.rank(), 2048));
                pipeline.recvbuff().copyFromHost(new float[3072]);
                for (int repeat = 0; repeat < 3; repeat++) { // registered once, reused
                    pipeline.step();
                    rank.stream().synchronize();
                    checkTwoAllReduces(ranks, pipeline.recvbuff());
                }
                // the sim stands for either library, so describe() names both prefixes
                assertTrue(
                        pipeline.describe().contains("general: registered once at bind ({nccl,mccl}CommRegister)"),
                        pipeline.describe());
            }
        });
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 4})
    void seedOneBigBlock(int ranks) {
        Ranks.run(ranks, rank -> {
            Pipeline closeable;
            try (CollectiveSeedPipelines_Arena pipeline =
                    CollectiveSeedPipelines_Arena.bind(rank.comm(), rank.stream())) {
                closeable = pipeline;
                assertEquals(0, pipeline.sendbuff().headOffset());
                assertEquals(1 << 20, pipeline.recvbuff().headOffset());
                assertEquals(pipeline.buffer().memory(), pipeline.recvbuff().memory());
                pipeline.sendbuff().copyFromHost(ramp(rank.rank(), 1024));
                pipeline.step();
                rank.stream().synchronize();
                assertFloats(sumOfRamps(ranks, 0, 1024), pipeline.recvbuff(), "recvbuff");
            }
            CollectivesException afterClose =
                    assertThrows(CollectivesException.class, ((CollectiveSeedPipelines_Arena) closeable)::step);
            assertTrue(afterClose.getMessage().contains("SeedPipelines.Arena is closed"), afterClose.getMessage());
        });
    }
}
