package dev.collectives.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import java.io.Serializable;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.BarrierTaskContext;
import org.junit.jupiter.api.Test;

/** Spark retries a failed barrier stage whose output feeds a shuffle: its tasks form a fresh communicator. */
class StageRetryOnSparkTest {
    /** What one task of the stage ends with: its rank, its stage attempt, and the allreduce's sum. */
    record Outcome(int rank, int attempt, float sum) implements Serializable {}

    @Test
    void aRetriedStageFormsAFreshCommunicatorAndItsTasksFinishTheStep() {
        List<Outcome> results = BarrierStages.mapPartitions(
                        LocalSpark.context()
                                .parallelize(
                                        IntStream.range(0, LocalSpark.TASKS)
                                                .boxed()
                                                .toList(),
                                        LocalSpark.TASKS),
                        (Iterator<Integer> rows) -> {
                            BarrierTaskContext ctx = BarrierTaskContext.get();
                            try (JoinedRank me = SparkRanks.join(ctx, Backends.get("sim"), SparkTests.settings());
                                    DeviceBuffer grads = me.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 1)) {
                                grads.copyFromHost(new float[] {me.rank() + 1});
                                me.comm().allReduce(grads, grads, 1, DataType.FLOAT32, ReduceOp.SUM, me.stream());
                                me.stream().synchronize();
                                if (me.rank() == 1 && ctx.stageAttemptNumber() == 0) {
                                    throw new IllegalStateException("rank 1 fails on purpose in the first attempt");
                                }
                                float[] sum = new float[1];
                                grads.copyToHost(sum);
                                return List.of(new Outcome(me.rank(), ctx.stageAttemptNumber(), sum[0]))
                                        .iterator();
                            }
                        })
                .repartition(1)
                .collect()
                .stream()
                .sorted(Comparator.comparingInt(Outcome::rank))
                .toList();

        // every task of one later attempt; a partial one (only the failed task rerun) fails by itself
        int attempt = results.get(0).attempt();
        assertTrue(attempt > 0, String.valueOf(results));
        assertEquals(
                IntStream.range(0, LocalSpark.TASKS)
                        .mapToObj(r -> new Outcome(r, attempt, 10))
                        .toList(),
                results);
    }
}
