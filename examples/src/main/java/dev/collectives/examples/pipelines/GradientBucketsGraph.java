package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.Capture;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * {@link GradientBucketsLocal} with graph registration: each bucket is a graph, captured the first time it is
 * called and launched on every later call. The full buckets every model of the family has are captured at bind;
 * the shorter last one, whose size only the model knows, on the first backward pass.
 */
@CollectivePipeline(registration = Registration.GRAPH, graphCache = 8)
public interface GradientBucketsGraph {
    @Dim
    long parameters();

    @Buffer(type = DataType.FLOAT32, countExpr = "parameters")
    DeviceBuffer grads();

    @AllReduce(
            send = "grads",
            sendOffsetExpr = "offset",
            recv = "grads",
            recvOffsetExpr = "offset",
            countExpr = "n",
            op = ReduceOp.SUM)
    @Capture(
            param = "offset",
            values = {0, ToyModel.BUCKET, 2 * ToyModel.BUCKET, 3 * ToyModel.BUCKET})
    @Capture(param = "n", values = ToyModel.BUCKET)
    void bucket(long offset, long n);
}
