package dev.collectives.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.examples.Example;
import dev.collectives.examples.Examples;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.JoinedRank;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.BarrierTaskContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The MCCL user-buffer-registration guide's three examples, each as a barrier stage of four tasks on sim. */
class SeedExamplesOnSparkTest {
    @ParameterizedTest
    @ValueSource(strings = {"seed-graph", "seed-local", "seed-arena"})
    void everyTaskOfTheStageIsOneRankAndChecksItsResults(String name) {
        List<String> reports = BarrierStages.mapPartitions(
                        LocalSpark.context()
                                .parallelize(
                                        IntStream.range(0, LocalSpark.TASKS)
                                                .boxed()
                                                .toList(),
                                        LocalSpark.TASKS),
                        (Iterator<Integer> rows) -> {
                            Example example = Examples.all().stream()
                                    .filter(e -> e.name().equals(name))
                                    .findFirst()
                                    .orElseThrow();
                            try (JoinedRank me = SparkRanks.join(
                                    BarrierTaskContext.get(), Backends.get("sim"), SparkTests.settings())) {
                                Example.RankReport report = example.run(me);
                                return List.of("rank " + me.rank() + " of " + me.size() + ", local rank "
                                                + me.localRank() + ": " + report.check())
                                        .iterator();
                            }
                        })
                .collect();

        assertEquals(LocalSpark.TASKS, reports.size());
        for (int rank = 0; rank < LocalSpark.TASKS; rank++) {
            String report = reports.get(rank);
            assertTrue(report.startsWith("rank " + rank + " of 4, local rank " + rank + ": OK: "), report);
        }
    }
}
