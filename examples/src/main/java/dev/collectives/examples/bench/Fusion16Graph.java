package dev.collectives.examples.bench;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.WrittenOrder;
import dev.collectives.runtime.DeviceBuffer;

/** {@link FusionBenchmark}'s 16 allreduces of n floats end to end in `in` and in `out`, each step one graph. */
@CollectivePipeline(registration = Registration.GRAPH)
public interface Fusion16Graph {
    @Dim
    long n();

    @Buffer(type = DataType.FLOAT32, countExpr = "16 * n")
    DeviceBuffer in();

    @Buffer(type = DataType.FLOAT32, countExpr = "16 * n")
    DeviceBuffer out();

    @AllReduce(send = "in", recv = "out", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "n", recv = "out", recvOffsetExpr = "n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "2 * n", recv = "out", recvOffsetExpr = "2 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "3 * n", recv = "out", recvOffsetExpr = "3 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "4 * n", recv = "out", recvOffsetExpr = "4 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "5 * n", recv = "out", recvOffsetExpr = "5 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "6 * n", recv = "out", recvOffsetExpr = "6 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "7 * n", recv = "out", recvOffsetExpr = "7 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "8 * n", recv = "out", recvOffsetExpr = "8 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "9 * n", recv = "out", recvOffsetExpr = "9 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "10 * n", recv = "out", recvOffsetExpr = "10 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "11 * n", recv = "out", recvOffsetExpr = "11 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "12 * n", recv = "out", recvOffsetExpr = "12 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "13 * n", recv = "out", recvOffsetExpr = "13 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "14 * n", recv = "out", recvOffsetExpr = "14 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "15 * n", recv = "out", recvOffsetExpr = "15 * n", countExpr = "n")
    void planned();

    @WrittenOrder
    @AllReduce(send = "in", recv = "out", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "n", recv = "out", recvOffsetExpr = "n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "2 * n", recv = "out", recvOffsetExpr = "2 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "3 * n", recv = "out", recvOffsetExpr = "3 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "4 * n", recv = "out", recvOffsetExpr = "4 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "5 * n", recv = "out", recvOffsetExpr = "5 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "6 * n", recv = "out", recvOffsetExpr = "6 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "7 * n", recv = "out", recvOffsetExpr = "7 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "8 * n", recv = "out", recvOffsetExpr = "8 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "9 * n", recv = "out", recvOffsetExpr = "9 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "10 * n", recv = "out", recvOffsetExpr = "10 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "11 * n", recv = "out", recvOffsetExpr = "11 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "12 * n", recv = "out", recvOffsetExpr = "12 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "13 * n", recv = "out", recvOffsetExpr = "13 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "14 * n", recv = "out", recvOffsetExpr = "14 * n", countExpr = "n")
    @AllReduce(send = "in", sendOffsetExpr = "15 * n", recv = "out", recvOffsetExpr = "15 * n", countExpr = "n")
    void written();
}
