package dev.collectives.examples.bench;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.WrittenOrder;
import dev.collectives.runtime.DeviceBuffer;

/** {@link FusionBenchmark}'s 4 allreduces of n floats end to end in `in` and in `out`, each step one graph. */
@CollectivePipeline(registration = Registration.GRAPH)
public interface Fusion4Graph {
    @Dim
    long n();

    @Buffer(type = DataType.FLOAT32, countExpr = "4 * n")
    DeviceBuffer in();

    @Buffer(type = DataType.FLOAT32, countExpr = "4 * n")
    DeviceBuffer out();

    @AllReduce(send = "in", recv = "out", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "n", recv = "out", recvOffsetExpr = "n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "2 * n", recv = "out", recvOffsetExpr = "2 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "3 * n", recv = "out", recvOffsetExpr = "3 * n", countExpr = "n")
    void planned();

    @WrittenOrder
    @AllReduce(send = "in", recv = "out", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "n", recv = "out", recvOffsetExpr = "n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "2 * n", recv = "out", recvOffsetExpr = "2 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "3 * n", recv = "out", recvOffsetExpr = "3 * n", countExpr = "n")
    void written();
}
