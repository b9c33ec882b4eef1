package dev.collectives.spark.example;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * The data-parallel half of a training step: every rank holds the sums of its own rows (the loss's gradient for each
 * weight, then the number of rows), and one allreduce, captured into a graph at bind and launched each step, leaves
 * the sums over all rows on every rank.
 */
@CollectivePipeline(registration = Registration.GRAPH)
public interface LinearGradients {
    @Buffer(type = DataType.FLOAT64, count = LinearModel.SUMS)
    DeviceBuffer sums();

    @AllReduce(send = "sums", recv = "sums", count = LinearModel.SUMS, op = ReduceOp.SUM)
    void allReduce();
}
