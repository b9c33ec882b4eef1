package dev.collectives.examples.bench;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.WrittenOrder;
import dev.collectives.runtime.DeviceBuffer;

/** {@link FusionBenchmark}'s single allreduce of n floats (k = 1: nothing to fuse), eagerly. */
@CollectivePipeline(registration = Registration.NONE)
public interface Fusion1Eager {
    @Dim
    long n();

    @Buffer(type = DataType.FLOAT32, countExpr = "1 * n")
    DeviceBuffer in();

    @Buffer(type = DataType.FLOAT32, countExpr = "1 * n")
    DeviceBuffer out();

    @AllReduce(send = "in", recv = "out", countExpr = "n")
    void planned();

    @WrittenOrder
    @AllReduce(send = "in", recv = "out", countExpr = "n")
    void written();
}
