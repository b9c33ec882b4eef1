package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * The MCCL user-buffer-registration guide's example 1, CUDA/MUSA graph registration: two allreduces captured into one
 * graph, the second at element offsets 1024 (send) and 2048 (recv), which are the same on every rank (R2). The buffers
 * come from {@code ncclMemAlloc}/{@code mcclMemAlloc} (the default allocator) and are registered at capture,
 * deregistered when the graph is destroyed (R4, R5).
 */
@CollectivePipeline(registration = Registration.GRAPH)
public interface SeedGraphRegistration {
    @Buffer(type = DataType.FLOAT32, count = SeedAllReduces.BUFFER_COUNT)
    DeviceBuffer sendbuff();

    @Buffer(type = DataType.FLOAT32, count = SeedAllReduces.BUFFER_COUNT)
    DeviceBuffer recvbuff();

    @AllReduce(send = "sendbuff", recv = "recvbuff", count = SeedAllReduces.COUNT, op = ReduceOp.SUM)
    @AllReduce(
            send = "sendbuff",
            sendOffset = SeedAllReduces.SECOND_SEND_OFFSET,
            recv = "recvbuff",
            recvOffset = SeedAllReduces.SECOND_RECV_OFFSET,
            count = SeedAllReduces.COUNT,
            op = ReduceOp.SUM)
    void step();
}
