package com.example;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.External;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.View;
import dev.collectives.runtime.DeviceBuffer;

/**
 * Sums the gradients the caller passes in (an {@code @External} buffer) into the second half of a block the pipeline
 * allocates: the view starts 4096 bytes in (a byte offset), the op 256 elements into the view (an element offset).
 */
@CollectivePipeline(registration = Registration.GRAPH)
public interface Gradients {
    long COUNT = 256;

    @External(type = DataType.FLOAT32, count = COUNT)
    DeviceBuffer grads();

    @Buffer(type = DataType.FLOAT32, count = 2048)
    DeviceBuffer block();

    @View(of = "block", offsetBytes = 4096, type = DataType.FLOAT32, count = 1024)
    DeviceBuffer summed();

    @AllReduce(send = "grads", recv = "summed", recvOffset = 256, count = COUNT, op = ReduceOp.SUM)
    void step();
}
