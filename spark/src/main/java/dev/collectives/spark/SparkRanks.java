package dev.collectives.spark;

import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.JoinedRank;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.resource.ResourceInformation;
import org.apache.spark.util.TaskCompletionListener;

/**
 * The tasks of a Spark barrier stage as the ranks of one communicator. Call {@link #join} in every task of the
 * stage ({@code rdd.barrier().mapPartitions(...)}), with the same backend:
 *
 * <pre>{@code
 * BarrierTaskContext ctx = BarrierTaskContext.get();
 * try (JoinedRank me = SparkRanks.join(ctx, Backends.get("nccl"));
 *      var p = CollectiveGradients.bind(me.comm(), me.stream())) {
 *     ...
 * }
 * }</pre>
 *
 * <ul>
 *   <li>rank: the task's partition id; size: the number of tasks of the stage;</li>
 *   <li>local rank and local size: the task's place among the stage's tasks on the same executor host;</li>
 *   <li>device: the task's {@code gpu} resource ({@code spark.task.resource.gpu.amount=1}); without one, the
 *       bootstrap's default (the local rank, or 0 when {@code CUDA_VISIBLE_DEVICES} names one device);</li>
 *   <li>the unique id goes from rank 0 to the others through {@link BarrierTaskContext#allGather}: no port is
 *       opened to meet, and no job token is needed.</li>
 * </ul>
 *
 * <p>When a task fails or is killed, Spark fails the barrier stage and kills its other tasks; their communicators
 * are aborted then, so that no task waits in a collective for a rank that is gone. Spark's stage retry runs every
 * task again, and they form a fresh communicator.
 */
public final class SparkRanks {
    /** The Spark resource a task's device comes from. */
    public static final String GPU_RESOURCE = "gpu";

    private SparkRanks() {}

    /**
     * Joins this task to the communicator of its barrier stage on {@code backend}. Other settings (the timeout of
     * each exchange, the sim's settings) come from this executor's {@code COLLECTIVES_*} variables and
     * {@code collectives.*} system properties ({@code spark.executorEnv.COLLECTIVES_BOOTSTRAP_TIMEOUT=60s}).
     * Close the rank before the task ends (it is closed at the task's end otherwise).
     */
    public static JoinedRank join(BarrierTaskContext ctx, Backend backend) {
        return join(
                ctx, backend, Bootstrap.builder().environment(System.getenv()).properties(System.getProperties()));
    }

    /**
     * As {@link #join(BarrierTaskContext, Backend)}, with the settings of {@code settings} (a timeout, backend
     * options); this sets its rank, size, local rank and size, device and where the ranks meet.
     */
    public static JoinedRank join(BarrierTaskContext ctx, Backend backend, Bootstrap.Builder settings) {
        int rank = ctx.partitionId();
        BarrierTaskInfo[] tasks = ctx.getTaskInfos();
        String stage = "Spark barrier stage " + ctx.stageId() + " (attempt " + ctx.stageAttemptNumber() + ")";
        if (tasks.length != ctx.numPartitions()) {
            throw CollectivesException.usage(
                    rank,
                    "Spark runs " + tasks.length + " of the " + ctx.numPartitions()
                            + " tasks of " + stage + ", having kept the output of those that succeeded before the stage"
                            + " failed; a communicator needs a task for every partition, so this attempt fails and Spark's"
                            + " next one runs them all");
        }
        String host = tasks[rank].address();
        int localRank = 0;
        int localSize = 0;
        for (int r = 0; r < tasks.length; r++) {
            if (tasks[r].address().equals(host)) {
                localRank += r < rank ? 1 : 0;
                localSize++;
            }
        }
        settings.rank(rank).size(tasks.length).localRank(localRank).localSize(localSize);
        gpu(ctx.resourcesJMap(), rank).ifPresent(settings::device);
        Arrivals arrivals = Arrivals.of(ctx);
        ctx.addTaskCompletionListener((TaskCompletionListener) done -> arrivals.leave(tasks.length));
        JoinedRank joined = backend.join(
                settings.gatherer(stage, new BarrierGatherer(ctx, arrivals)).build());
        SparkRank watched = SparkRank.watched(ctx, stage, joined);
        ctx.addTaskCompletionListener((TaskCompletionListener) done -> watched.close());
        return watched;
    }

    /** The device of a task's {@value #GPU_RESOURCE} resource, among its {@code resources}: one device ordinal. */
    static Optional<Integer> gpu(Map<String, ResourceInformation> resources, int rank) {
        ResourceInformation gpu = resources.get(GPU_RESOURCE);
        if (gpu == null || gpu.addresses().length == 0) {
            return Optional.empty();
        }
        String[] addresses = gpu.addresses();
        if (addresses.length > 1) {
            throw CollectivesException.usage(
                    rank,
                    "the task holds " + addresses.length + " GPUs (" + String.join(", ", addresses)
                            + "), a rank uses one: set spark.task.resource.gpu.amount=1");
        }
        try {
            return Optional.of(Integer.parseInt(addresses[0].trim()));
        } catch (NumberFormatException e) {
            throw CollectivesException.usage(
                    rank,
                    "the task's GPU address '" + addresses[0] + "' is not a device"
                            + " ordinal: the GPU discovery script must list devices by index");
        }
    }
}
