package dev.collectives.examples.mistakes;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.External;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * A graph-registered allreduce from a buffer the caller owns: where that buffer lies in its allocation is known
 * only at bind, so bind compares its head offset across ranks (R2).
 */
@CollectivePipeline(registration = Registration.GRAPH)
public interface ExternalAllReduce {
    long COUNT = 1024;

    @External(type = DataType.FLOAT32, count = COUNT)
    DeviceBuffer input();

    @Buffer(type = DataType.FLOAT32, count = COUNT)
    DeviceBuffer output();

    @AllReduce(send = "input", recv = "output", count = COUNT, op = ReduceOp.SUM)
    void step();
}
