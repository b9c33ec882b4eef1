package golden;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Dim;
import dev.collectives.annotation.External;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Send;
import dev.collectives.annotation.Recv;
import dev.collectives.annotation.View;
import dev.collectives.runtime.DeviceBuffer;

/** Sizes at bind (dims, ranks) and at each call (step parameters), registered locally. */
@CollectivePipeline(registration = Registration.LOCAL)
public interface ShapesLocalPipeline {
    @Dim
    long elements();

    @Dim
    int slots();

    @Buffer(type = DataType.FLOAT32, countExpr = "elements")
    DeviceBuffer grads();

    @View(of = "grads", type = DataType.FLOAT32, countExpr = "elements / ranks * ranks")
    DeviceBuffer whole();

    @External(type = DataType.FLOAT32, countExpr = "elements / ranks")
    DeviceBuffer shard();

    @Buffer(type = DataType.INT32, countExpr = "slots * 2")
    DeviceBuffer ring();

    /** A bucket of the gradients, in place: proved inside nothing, so checked at each call. */
    @AllReduce(send = "grads", recv = "grads", countExpr = "n", sendOffsetExpr = "offset",
            recvOffsetExpr = "offset", op = ReduceOp.SUM)
    void bucket(long offset, long n);

    /** Every size proved at compile time: no check is generated. */
    @ReduceScatter(send = "whole", recv = "shard", recvCountExpr = "elements / ranks", op = ReduceOp.SUM)
    void scatter();

    /** Slot i of the ring to the next rank, from the previous one into the second half. */
    @Send(buffer = "ring", countExpr = "1", offsetExpr = "slot")
    @Recv(buffer = "ring", countExpr = "1", offsetExpr = "slots + slot")
    void pass(int slot);
}
