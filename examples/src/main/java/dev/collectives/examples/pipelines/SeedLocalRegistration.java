package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * The MCCL user-buffer-registration guide's example 2, local registration: the same two allreduces as {@link
 * SeedGraphRegistration}, issued eagerly on buffers that bind registers once with {@code ncclCommRegister}/{@code
 * mcclCommRegister} and close deregisters (R6).
 */
@CollectivePipeline(registration = Registration.LOCAL)
public interface SeedLocalRegistration {
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
