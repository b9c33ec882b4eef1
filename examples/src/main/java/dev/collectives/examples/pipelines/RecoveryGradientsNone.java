package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.External;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/** {@link DataParallelGradients} in the NONE registration mode, for the recovery example's runs in each mode. */
@CollectivePipeline(registration = Registration.NONE)
public interface RecoveryGradientsNone {
    @External(type = DataType.FLOAT32, count = TensorParallelShards.SHARD)
    DeviceBuffer grads();

    @AllReduce(send = "grads", recv = "grads", count = TensorParallelShards.SHARD, op = ReduceOp.SUM)
    void allReduce();
}
