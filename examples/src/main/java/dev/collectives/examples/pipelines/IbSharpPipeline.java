package dev.collectives.examples.pipelines;

import dev.collectives.annotation.Acceleration;
import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * IB SHARP registration (R8): local registration on a communicator with exactly one rank per node, serving the
 * three collectives IB SHARP accelerates: allreduce, reducescatter and allgather.
 */
@CollectivePipeline(registration = Registration.LOCAL, acceleration = Acceleration.IB_SHARP)
public interface IbSharpPipeline {
    /** Sized for up to this many ranks: reducescatter reads and allgather writes {@code BLOCK × ranks} elements. */
    int MAX_RANKS = 64;

    long REDUCED = 1024;
    long BLOCK = 256;
    long SCATTER_RECV_OFFSET = REDUCED;
    long GATHER_RECV_OFFSET = 4096;

    @Buffer(type = DataType.FLOAT32, count = BLOCK * MAX_RANKS)
    DeviceBuffer sendbuff();

    @Buffer(type = DataType.FLOAT32, count = GATHER_RECV_OFFSET + BLOCK * MAX_RANKS)
    DeviceBuffer recvbuff();

    @AllReduce(send = "sendbuff", recv = "recvbuff", count = REDUCED, op = ReduceOp.SUM)
    @ReduceScatter(
            send = "sendbuff",
            recv = "recvbuff",
            recvOffset = SCATTER_RECV_OFFSET,
            recvCount = BLOCK,
            op = ReduceOp.SUM)
    @AllGather(send = "sendbuff", recv = "recvbuff", recvOffset = GATHER_RECV_OFFSET, sendCount = BLOCK)
    void step();
}
