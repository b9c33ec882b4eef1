package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * A model's gradient arena, sized at bind from the model ({@code parameters}), registered once (R6) and allreduced
 * in place bucket by bucket: each call names its bucket, and is checked to lie in the arena (R7) before anything
 * is issued.
 */
@CollectivePipeline(registration = Registration.LOCAL)
public interface GradientBucketsLocal {
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
    void bucket(long offset, long n);
}
