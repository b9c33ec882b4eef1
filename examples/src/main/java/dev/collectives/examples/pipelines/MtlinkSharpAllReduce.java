package dev.collectives.examples.pipelines;

import dev.collectives.annotation.Acceleration;
import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * MTLink SHARP (NVLS on NVIDIA) registration through a graph: the buffer comes from {@code ncclMemAlloc}/{@code
 * mcclMemAlloc}, as R3 requires, and the allreduce works in place (send and recv coincide, which R7 allows).
 */
@CollectivePipeline(registration = Registration.GRAPH, acceleration = Acceleration.MTLINK_SHARP)
public interface MtlinkSharpAllReduce {
    long COUNT = 4096;

    @Buffer(type = DataType.FLOAT32, count = 1 << 18)
    DeviceBuffer data();

    @AllReduce(send = "data", recv = "data", count = COUNT, op = ReduceOp.SUM)
    void step();
}
