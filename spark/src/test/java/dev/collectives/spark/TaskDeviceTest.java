package dev.collectives.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collectives.runtime.CollectivesException;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.resource.ResourceInformation;
import org.junit.jupiter.api.Test;

/** A task's device comes from the one GPU that Spark gave it. */
class TaskDeviceTest {
    private static Map<String, ResourceInformation> gpus(String... addresses) {
        return Map.of(SparkRanks.GPU_RESOURCE, new ResourceInformation(SparkRanks.GPU_RESOURCE, addresses));
    }

    @Test
    void theDeviceIsTheTasksGpuAddress() {
        assertEquals(Optional.of(3), SparkRanks.gpu(gpus("3"), 1));
    }

    @Test
    void aTaskWithoutAGpuLeavesTheDeviceToTheBootstrap() {
        assertEquals(Optional.empty(), SparkRanks.gpu(Map.of(), 1));
    }

    @Test
    void aTaskWithSeveralGpusIsRefusedSayingWhatToSet() {
        CollectivesException e = assertThrows(CollectivesException.class, () -> SparkRanks.gpu(gpus("0", "1"), 2));
        assertEquals(
                "rank 2: the task holds 2 GPUs (0, 1), a rank uses one: set spark.task.resource.gpu.amount=1",
                e.getMessage());
    }

    @Test
    void aGpuAddressThatIsNotAnOrdinalIsRefused() {
        CollectivesException e = assertThrows(CollectivesException.class, () -> SparkRanks.gpu(gpus("GPU-8f2c"), 0));
        assertEquals(
                "rank 0: the task's GPU address 'GPU-8f2c' is not a device ordinal: the GPU discovery script"
                        + " must list devices by index",
                e.getMessage());
    }
}
