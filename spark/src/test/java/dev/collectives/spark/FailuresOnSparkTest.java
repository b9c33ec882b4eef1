package dev.collectives.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Backends;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.JoinedRank;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A task that fails, before or after joining, and a task that never joins: the stage fails, naming the rank, and no
 * task waits for the one that is gone.
 */
class FailuresOnSparkTest {
    /** What the other ranks' failures said, by rank; the tasks run in this JVM (local mode). */
    private static final Map<Integer, String> SEEN = new ConcurrentHashMap<>();

    private static CountDownLatch othersFailed;
    /** The tasks that join meet before any of them calls it: a late starter is not taken for one that never joins. */
    private static CountDownLatch joining;

    @BeforeEach
    void forget() {
        SEEN.clear();
        othersFailed = new CountDownLatch(LocalSpark.TASKS - 1);
    }

    @Test
    void aTaskThatThrowsFailsTheStageAndTheOthersCommunicatorsAreAborted() throws InterruptedException {
        SparkException job = assertThrows(
                SparkException.class,
                () -> stage(rows -> {
                            BarrierTaskContext ctx = BarrierTaskContext.get();
                            try (JoinedRank me = SparkRanks.join(ctx, Backends.get("sim"), SparkTests.settings());
                                    DeviceBuffer grads = me.comm().allocate(Allocator.MEM_ALLOC, DataType.FLOAT32, 4)) {
                                if (me.rank() == 2) {
                                    throw new IllegalStateException("rank 2 fails on purpose before its allreduce");
                                }
                                record(me.rank(), () -> {
                                    me.comm().allReduce(grads, grads, 4, DataType.FLOAT32, ReduceOp.SUM, me.stream());
                                    me.stream().synchronize();
                                });
                                return List.of(me.rank()).iterator();
                            }
                        })
                        .collect());

        assertTrue(job.getMessage().contains("rank 2 fails on purpose before its allreduce"), job.getMessage());
        // the others waited in the allreduce for rank 2 (the sim's timeout is a minute): their aborts ended it
        awaitOthers();
        for (int rank : new int[] {0, 1, 3}) {
            assertTrue(
                    SEEN.get(rank).contains("rank " + rank + ": ")
                            && SEEN.get(rank).contains("the communicator was aborted"),
                    rank + ": " + SEEN.get(rank));
        }
    }

    @Test
    void aTaskThatFailsBeforeJoiningEndsTheOthersJoinNamingIt() throws InterruptedException {
        joining = new CountDownLatch(LocalSpark.TASKS - 1);
        SparkException job = assertThrows(
                SparkException.class,
                () -> stage(rows -> {
                            BarrierTaskContext ctx = BarrierTaskContext.get();
                            if (ctx.partitionId() == 3) {
                                // fails once the others run: on a busy machine Spark would otherwise end the stage
                                // before they start, and they would never see the failure
                                assertTrue(
                                        joining.await(SparkTests.TIMEOUT.toSeconds(), TimeUnit.SECONDS),
                                        "the others never started");
                                throw new IllegalStateException("rank 3 fails on purpose before it joins");
                            }
                            joining.countDown();
                            record(
                                    ctx.partitionId(),
                                    () -> SparkRanks.join(ctx, Backends.get("sim"), SparkTests.settings())
                                            .close());
                            return List.of(ctx.partitionId()).iterator();
                        })
                        .collect());

        assertTrue(job.getMessage().contains("rank 3 fails on purpose before it joins"), job.getMessage());
        awaitOthers();
        for (int rank = 0; rank < 3; rank++) {
            String seen = SEEN.get(rank);
            assertTrue(
                    seen.startsWith("[bootstrap] rank " + rank + ": allgather #1 at Spark barrier stage ")
                            && seen.contains("failed: Spark ended the barrier stage: ")
                            && seen.contains("rank 3 fails on purpose before it joins"),
                    rank + ": " + seen);
        }
    }

    @Test
    void aTaskThatNeverJoinsIsNamedByTheOthersWithinTheTimeout() throws InterruptedException {
        Duration timeout = Duration.ofSeconds(3);
        joining = new CountDownLatch(LocalSpark.TASKS - 1);
        SparkException job = assertThrows(
                SparkException.class,
                () -> stage(rows -> {
                            BarrierTaskContext ctx = BarrierTaskContext.get();
                            if (ctx.partitionId() != 1) { // a task that skips the join and ends
                                joining.countDown();
                                assertTrue(
                                        joining.await(SparkTests.TIMEOUT.toSeconds(), TimeUnit.SECONDS),
                                        "the others never started");
                                record(
                                        ctx.partitionId(),
                                        () -> SparkRanks.join(ctx, Backends.get("sim"), SparkTests.settings(timeout))
                                                .close());
                            }
                            return List.of(ctx.partitionId()).iterator();
                        })
                        .collect());

        assertTrue(
                job.getMessage()
                        .contains("rank 1 did not take part within 3000 ms: a task that does not call"
                                + " SparkRanks.join, or is stuck before it, holds the others"),
                job.getMessage());
        awaitOthers();
        assertEquals(List.of(0, 2, 3), SEEN.keySet().stream().sorted().toList());
    }

    /** One barrier stage of {@link LocalSpark#TASKS} tasks running {@code body}. */
    private static JavaRDD<Integer> stage(FlatMapFunction<Iterator<Integer>, Integer> body) {
        return BarrierStages.mapPartitions(
                LocalSpark.context()
                        .parallelize(
                                IntStream.range(0, LocalSpark.TASKS).boxed().toList(), LocalSpark.TASKS),
                body);
    }

    /** Runs {@code call}; a {@link CollectivesException} it throws is remembered for {@code rank}, and rethrown. */
    private static void record(int rank, Runnable call) {
        try {
            call.run();
        } catch (CollectivesException e) {
            SEEN.put(rank, e.getMessage());
            othersFailed.countDown();
            throw e;
        }
    }

    /** Spark reports the job's failure before its other tasks have ended: waits until they have. */
    private static void awaitOthers() throws InterruptedException {
        assertTrue(othersFailed.await(SparkTests.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "seen: " + SEEN);
    }
}
