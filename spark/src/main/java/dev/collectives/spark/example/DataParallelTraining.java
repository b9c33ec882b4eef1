package dev.collectives.spark.example;

import dev.collectives.runtime.Backends;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.spark.BarrierStages;
import dev.collectives.spark.SparkRanks;
import dev.collectives.spark.example.LinearModel.Sample;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * An example Spark application: data-parallel training of a {@link LinearModel} over a {@link Dataset}. One barrier
 * stage runs a task per partition, each task one rank of a communicator ({@link SparkRanks#join}); every step, each
 * task computes the gradient sums of its own rows, the {@link LinearGradients} pipeline allreduces them, and every
 * task takes the same step. At the end every task holds the weights that one process computes from all rows.
 *
 * <p>Arguments: {@code [ranks [steps]]}, 4 and 10 by default; the backend is the executors'
 * {@code COLLECTIVES_BACKEND} ({@code sim} unless set). The master and the rest come from {@code spark-submit}.
 */
public final class DataParallelTraining {
    /** Steps of the example: few enough that its sums stay exact in float64. */
    public static final int STEPS = 10;

    private DataParallelTraining() {}

    /** What one task ends with. */
    public record Trained(int rank, int rows, LinearModel model) implements Serializable {}

    public static void main(String[] args) {
        int ranks = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : STEPS;
        SparkSession spark = SparkSession.builder()
                .appName("collectives-data-parallel-training")
                .getOrCreate();
        try {
            List<Trained> tasks = train(exampleData(spark, ranks), steps);
            LinearModel expected = LinearModel.trainedInOneProcess(LinearModel.exampleRows(), steps);
            System.out.println("one process, " + steps + " steps: " + expected);
            boolean same = true;
            for (Trained task : tasks) {
                boolean match = task.model().equals(expected);
                same &= match;
                System.out.println("rank " + task.rank() + " (" + task.rows() + " rows): " + task.model()
                        + (match ? ": the same" : ": DIFFERENT"));
            }
            if (!same) {
                throw new IllegalStateException("the ranks did not all reach the weights of one process");
            }
        } finally {
            spark.stop();
        }
    }

    /** The example's rows as a Dataset of {@code x1, x2, y}, in {@code ranks} partitions. */
    public static Dataset<Row> exampleData(SparkSession spark, int ranks) {
        StructType schema = new StructType()
                .add("x1", DataTypes.DoubleType)
                .add("x2", DataTypes.DoubleType)
                .add("y", DataTypes.DoubleType);
        List<Row> rows = LinearModel.exampleRows().stream()
                .map(s -> RowFactory.create(s.x1(), s.x2(), s.y()))
                .toList();
        return spark.createDataFrame(rows, schema).repartition(ranks);
    }

    /** {@code steps} data-parallel steps over {@code data}: a barrier stage of one task per partition. */
    public static List<Trained> train(Dataset<Row> data, int steps) {
        return BarrierStages.mapPartitions(data.toJavaRDD(), (Iterator<Row> partition) -> {
                    List<Sample> mine = new ArrayList<>();
                    partition.forEachRemaining(
                            r -> mine.add(new Sample(r.getDouble(0), r.getDouble(1), r.getDouble(2))));
                    try (JoinedRank me = SparkRanks.join(BarrierTaskContext.get(), Backends.fromEnvironment());
                            CollectiveLinearGradients gradients =
                                    CollectiveLinearGradients.bind(me.comm(), me.stream())) {
                        LinearModel model = LinearModel.zero();
                        double[] sums = new double[LinearModel.SUMS];
                        for (int s = 0; s < steps; s++) {
                            gradients.sums().copyFromHost(model.gradientSums(mine));
                            gradients.allReduce();
                            me.stream().synchronize();
                            gradients.sums().copyToHost(sums);
                            model = model.step(sums);
                        }
                        return List.of(new Trained(me.rank(), mine.size(), model))
                                .iterator();
                    }
                })
                .collect();
    }
}
