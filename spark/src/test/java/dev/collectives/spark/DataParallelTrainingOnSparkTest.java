package dev.collectives.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.spark.example.DataParallelTraining;
import dev.collectives.spark.example.DataParallelTraining.Trained;
import dev.collectives.spark.example.LinearModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The example application's training stage, on sim: a GRAPH pipeline allreduces every step's gradient sums. */
class DataParallelTrainingOnSparkTest {
    @Test
    void everyTaskEndsWithTheWeightsOfOneProcess() {
        List<Trained> tasks = DataParallelTraining.train(
                DataParallelTraining.exampleData(LocalSpark.session(), LocalSpark.TASKS), DataParallelTraining.STEPS);

        LinearModel expected = LinearModel.trainedInOneProcess(LinearModel.exampleRows(), DataParallelTraining.STEPS);
        assertEquals(List.of(0, 1, 2, 3), tasks.stream().map(Trained::rank).toList());
        assertEquals(64, tasks.stream().mapToInt(Trained::rows).sum());
        for (Trained task : tasks) {
            assertEquals(expected, task.model(), "rank " + task.rank());
        }
    }
}
