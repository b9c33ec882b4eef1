package golden;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Broadcast;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.WrittenOrder;
import dev.collectives.runtime.DeviceBuffer;

/** Steps the processor plans: fused where ranges lie end to end, grouped where ops are independent, as written. */
@CollectivePipeline(registration = Registration.LOCAL)
public interface FusedPipeline {
    @Dim
    long n();

    @Dim
    long m();

    @Buffer(type = DataType.FLOAT32, count = 4096)
    DeviceBuffer in();

    @Buffer(type = DataType.FLOAT32, count = 4096)
    DeviceBuffer out();

    @Buffer(type = DataType.FLOAT32, countExpr = "4 * n + m")
    DeviceBuffer grads();

    /** Four buckets end to end in both buffers: one allreduce of 1024. */
    @AllReduce(send = "in", recv = "out", count = 256)
    @AllReduce(send = "in", sendOffset = 256, recv = "out", recvOffset = 256, count = 256)
    @AllReduce(send = "in", sendOffset = 512, recv = "out", recvOffset = 512, count = 256)
    @AllReduce(send = "in", sendOffset = 768, recv = "out", recvOffset = 768, count = 256)
    void buckets();

    /** In place: the first two proved end to end, the third only where the dims make it so, checked at bind. */
    @AllReduce(send = "grads", recv = "grads", countExpr = "n")
    @AllReduce(send = "grads", sendOffsetExpr = "n", recv = "grads", recvOffsetExpr = "n", countExpr = "n")
    @AllReduce(send = "grads", sendOffsetExpr = "m", recv = "grads", recvOffsetExpr = "m", countExpr = "n")
    void inPlace();

    /** A bucket of two halves: end to end for every argument. */
    @AllReduce(send = "grads", sendOffsetExpr = "offset", recv = "grads", recvOffsetExpr = "offset", countExpr = "half")
    @AllReduce(send = "grads", sendOffsetExpr = "offset + half", recv = "grads", recvOffsetExpr = "offset + half",
            countExpr = "half")
    void bucket(long offset, long half);

    /** Not fusable (another reduce op), but independent: one group. */
    @AllReduce(send = "in", sendOffset = 1024, recv = "out", recvOffset = 1024, count = 64, op = ReduceOp.SUM)
    @AllReduce(send = "in", sendOffset = 1088, recv = "out", recvOffset = 1088, count = 64, op = ReduceOp.MAX)
    @Broadcast(send = "in", sendOffset = 2048, recv = "out", recvOffset = 2048, count = 64, root = 0)
    void mixed();

    /** The same buckets, kept as written. */
    @WrittenOrder
    @AllReduce(send = "in", recv = "out", count = 256)
    @AllReduce(send = "in", sendOffset = 256, recv = "out", recvOffset = 256, count = 256)
    void asWritten();
}
