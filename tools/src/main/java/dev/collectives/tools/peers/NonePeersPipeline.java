package dev.collectives.tools.peers;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Broadcast;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * The NONE pipeline of a peers job ({@link PeersOps}), its ops issued one by one in the order written, as the
 * other library's ranks issue theirs.
 */
@CollectivePipeline(registration = Registration.NONE, plan = false)
public interface NonePeersPipeline {
    @Buffer(type = DataType.FLOAT32, count = PeersOps.SEED_BUFFER)
    DeviceBuffer sendbuff();

    @Buffer(type = DataType.FLOAT32, count = PeersOps.SEED_BUFFER)
    DeviceBuffer recvbuff();

    @Buffer(type = DataType.FLOAT32, count = PeersOps.SHARD)
    DeviceBuffer shard();

    @Buffer(type = DataType.FLOAT32, countExpr = PeersOps.FULL)
    DeviceBuffer full();

    @Buffer(type = DataType.FLOAT32, count = PeersOps.SHARD)
    DeviceBuffer reduced();

    @Buffer(type = DataType.FLOAT32, count = PeersOps.WEIGHTS)
    DeviceBuffer weights();

    @AllReduce(send = "sendbuff", recv = "recvbuff", count = PeersOps.COUNT, op = ReduceOp.SUM)
    @AllReduce(
            send = "sendbuff",
            sendOffset = PeersOps.SECOND_SEND_OFFSET,
            recv = "recvbuff",
            recvOffset = PeersOps.SECOND_RECV_OFFSET,
            count = PeersOps.COUNT,
            op = ReduceOp.SUM)
    void seed();

    @AllGather(send = "shard", recv = "full", sendCount = PeersOps.SHARD)
    void gather();

    @ReduceScatter(send = "full", recv = "reduced", recvCount = PeersOps.SHARD, op = ReduceOp.SUM)
    void scatter();

    @Broadcast(send = "weights", recv = "weights", count = PeersOps.WEIGHTS, root = PeersOps.ROOT)
    void broadcastWeights();
}
