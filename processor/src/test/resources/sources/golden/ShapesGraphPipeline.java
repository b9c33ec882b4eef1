package golden;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.Capture;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/** Gradient buckets captured into graphs per (offset, n), two sizes captured at bind. */
@CollectivePipeline(registration = Registration.GRAPH, graphCache = 4)
public interface ShapesGraphPipeline {
    @Dim
    long elements();

    @Buffer(type = DataType.BFLOAT16, countExpr = "elements")
    DeviceBuffer grads();

    @Capture(param = "offset", values = {0})
    @Capture(param = "n", values = {256, 512})
    @AllReduce(send = "grads", recv = "grads", countExpr = "n", sendOffsetExpr = "offset",
            recvOffsetExpr = "offset", op = ReduceOp.SUM)
    void bucket(long offset, long n);

    @AllReduce(send = "grads", recv = "grads", countExpr = "elements", op = ReduceOp.SUM)
    void all();
}
