package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.External;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * The data-parallel half of {@link HybridParallelExample}: the ranks that hold the same shard in every
 * tensor-parallel group sum their gradients in place, in one graph launch. The gradients are the tensor-parallel
 * pipeline's {@code reduced} buffer, passed in.
 */
@CollectivePipeline(registration = Registration.GRAPH)
public interface DataParallelGradients {
    @External(type = DataType.FLOAT32, count = TensorParallelShards.SHARD)
    DeviceBuffer grads();

    @AllReduce(send = "grads", recv = "grads", count = TensorParallelShards.SHARD, op = ReduceOp.SUM)
    void allReduce();
}
