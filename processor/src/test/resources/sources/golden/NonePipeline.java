package golden;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.AllToAll;
import dev.collectives.annotation.Broadcast;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Gather;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Recv;
import dev.collectives.annotation.Reduce;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Scatter;
import dev.collectives.annotation.Send;
import dev.collectives.annotation.Window;
import dev.collectives.runtime.DeviceBuffer;

/** No registration, 4 declared ranks; ops of different kinds interleaved (they run in written order), a window. */
@CollectivePipeline(registration = Registration.NONE, ranks = 4)
public interface NonePipeline {
    @Buffer(type = DataType.INT64, count = 4096)
    DeviceBuffer in();

    @Buffer(type = DataType.INT64, count = 4096)
    DeviceBuffer out();

    @Window
    @Buffer(type = DataType.FLOAT32, count = 1 << 20, allocator = dev.collectives.annotation.Allocator.VMM)
    DeviceBuffer symmetric();

    @AllReduce(send = "in", recv = "out", count = 64, op = ReduceOp.MIN)
    @Broadcast(send = "in", sendOffset = 64, recv = "out", recvOffset = 64, count = 64, root = 2)
    @AllReduce(send = "in", sendOffset = 128, recv = "out", recvOffset = 128, count = 64, op = ReduceOp.PROD)
    void mixed();

    @Reduce(send = "in", recv = "out", count = 100, op = ReduceOp.SUM, root = 3)
    @AllToAll(send = "in", sendOffset = 1024, recv = "out", recvOffset = 1024, count = 16)
    void gatherAtRoot();

    @Scatter(send = "in", sendOffset = 3072, recv = "out", recvOffset = 3072, recvCount = 32, root = 1)
    @Gather(send = "in", sendOffset = 3200, recv = "out", recvOffset = 3584, sendCount = 32, root = 1)
    void shards();

    @Send(buffer = "in", count = 8, peer = Peer.NEXT)
    @Recv(buffer = "out", count = 8, offset = 2048, peer = Peer.PREVIOUS)
    void exchange();
}
