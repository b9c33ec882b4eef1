package dev.collectives.tools.faults;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/** The GRAPH pipeline of a fault job: an allreduce of the first {@code n} elements, {@code n} given at each call. */
@CollectivePipeline(registration = Registration.GRAPH)
public interface GraphFaultPipeline {
    @Buffer(type = DataType.FLOAT32, count = FaultStep.CAPACITY)
    DeviceBuffer send();

    @Buffer(type = DataType.FLOAT32, count = FaultStep.CAPACITY)
    DeviceBuffer recv();

    @AllReduce(send = "send", recv = "recv", countExpr = "n")
    void step(long n);
}
