package dev.collectives.tools.bench;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/** {@link ShapesBenchmark}'s LOCAL pipeline: the same allreduce as a constant step and as a step with parameters. */
@CollectivePipeline(registration = Registration.LOCAL)
public interface LocalShapesBenchPipeline {
    @Dim
    long elements();

    @Buffer(type = DataType.FLOAT32, countExpr = "elements")
    DeviceBuffer send();

    @Buffer(type = DataType.FLOAT32, countExpr = "elements")
    DeviceBuffer recv();

    @AllReduce(
            send = "send",
            sendOffset = ShapesBenchmark.OFFSET,
            recv = "recv",
            recvOffset = ShapesBenchmark.OFFSET,
            count = ShapesBenchmark.COUNT)
    void constant();

    @AllReduce(send = "send", sendOffsetExpr = "offset", recv = "recv", recvOffsetExpr = "offset", countExpr = "n")
    void bucket(long offset, long n);
}
