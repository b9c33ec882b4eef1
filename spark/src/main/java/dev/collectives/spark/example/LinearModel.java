package dev.collectives.spark.example;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

/**
 * A linear model {@code y = w0 + w1 x1 + w2 x2}, trained by gradient descent on the mean squared error. The example's
 * rows have small integer values and the learning rate is a power of two, so every sum of the training is exact in
 * float64 for the example's steps: the ranks may add their partial sums in any order and still reach, bit for bit,
 * the weights of one process that sums all rows itself.
 *
 * @param weights {@code w0, w1, w2}
 */
public record LinearModel(double[] weights) implements Serializable {
    /** Weights: a bias and one per feature. */
    public static final int WEIGHTS = 3;
    /** What a rank contributes to the allreduce: the gradient's sum for each weight, then its number of rows. */
    public static final int SUMS = WEIGHTS + 1;
    /** The step size: a power of two, as the exact sums need. */
    public static final double LEARNING_RATE = 0.25;

    /** All weights 0. */
    public static LinearModel zero() {
        return new LinearModel(new double[WEIGHTS]);
    }

    /** One row of data: features {@code x1}, {@code x2} and the target {@code y}. */
    public record Sample(double x1, double x2, double y) implements Serializable {}

    /**
     * The example's data: 64 rows on an 8 x 8 grid of {@code x1, x2} in [-4, 3], {@code y = 3 + 2 x1 - x2}, which the
     * weights approach step by step.
     */
    public static List<Sample> exampleRows() {
        return java.util.stream.IntStream.range(0, 64)
                .mapToObj(i -> {
                    double x1 = i % 8 - 4;
                    double x2 = i / 8 - 4;
                    return new Sample(x1, x2, 3 + 2 * x1 - x2);
                })
                .toList();
    }

    /** Over {@code rows}: for each weight, the sum of {@code (prediction - y) * feature}; then the number of rows. */
    public double[] gradientSums(Iterable<Sample> rows) {
        double[] sums = new double[SUMS];
        for (Sample row : rows) {
            double[] features = {1, row.x1(), row.x2()};
            double error = -row.y();
            for (int j = 0; j < WEIGHTS; j++) {
                error += weights[j] * features[j];
            }
            for (int j = 0; j < WEIGHTS; j++) {
                sums[j] += error * features[j];
            }
            sums[WEIGHTS] += 1;
        }
        return sums;
    }

    /** The model after one step down the mean gradient that {@code sums} (over all rows) give. */
    public LinearModel step(double[] sums) {
        double[] next = weights.clone();
        for (int j = 0; j < WEIGHTS; j++) {
            next[j] -= LEARNING_RATE * sums[j] / sums[WEIGHTS];
        }
        return new LinearModel(next);
    }

    /** {@code steps} steps on all of {@code rows} in one process: what the ranks must reach together. */
    public static LinearModel trainedInOneProcess(List<Sample> rows, int steps) {
        LinearModel model = zero();
        for (int s = 0; s < steps; s++) {
            model = model.step(model.gradientSums(rows));
        }
        return model;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LinearModel m && Arrays.equals(weights, m.weights);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(weights);
    }

    @Override
    public String toString() {
        return "w0 = " + weights[0] + ", w1 = " + weights[1] + ", w2 = " + weights[2];
    }
}
