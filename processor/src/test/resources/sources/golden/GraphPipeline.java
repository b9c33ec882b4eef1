package golden;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Recv;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Send;
import dev.collectives.runtime.DeviceBuffer;

/** Seed example 1 (graph registration), plus a ring exchange and an allgather captured into their own graphs. */
@CollectivePipeline(registration = Registration.GRAPH)
public interface GraphPipeline {
    @Buffer(type = DataType.FLOAT32, count = 1 << 25)
    DeviceBuffer sendbuff();

    @Buffer(type = DataType.FLOAT32, count = 1 << 25)
    DeviceBuffer recvbuff();

    @AllReduce(send = "sendbuff", recv = "recvbuff", count = 1024, op = ReduceOp.SUM)
    @AllReduce(send = "sendbuff", sendOffset = 1024, recv = "recvbuff", recvOffset = 2048, count = 1024,
            op = ReduceOp.SUM)
    void step();

    @Send(buffer = "sendbuff", count = 256, peer = Peer.NEXT)
    @Recv(buffer = "recvbuff", count = 256, offset = 4096, peer = Peer.PREVIOUS)
    void ring();

    @AllGather(send = "sendbuff", recv = "recvbuff", sendCount = 512, recvOffset = 8192)
    void gather();
}
