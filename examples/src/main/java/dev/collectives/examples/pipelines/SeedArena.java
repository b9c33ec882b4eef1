package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.View;
import dev.collectives.runtime.DeviceBuffer;

/**
 * The MCCL user-buffer-registration guide's example 3: one large block allocated and registered once, with sendbuff at
 * its head and recvbuff 1 MiB in, carved from it as views (R7). Their offsets from the block's head are constants,
 * hence the same on every rank (R2).
 */
@CollectivePipeline(registration = Registration.LOCAL)
public interface SeedArena {
    /** The guide's block is 1 << 29 bytes; 1 << 22 (4 MiB) holds the same views. */
    long BLOCK_BYTES = 1 << 22;

    long RECV_OFFSET_BYTES = 1 << 20;
    long COUNT = 1024;

    @Buffer(count = BLOCK_BYTES)
    DeviceBuffer buffer();

    @View(of = "buffer", offsetBytes = 0, type = DataType.FLOAT32, count = COUNT)
    DeviceBuffer sendbuff();

    @View(of = "buffer", offsetBytes = RECV_OFFSET_BYTES, type = DataType.FLOAT32, count = COUNT)
    DeviceBuffer recvbuff();

    @AllReduce(send = "sendbuff", recv = "recvbuff", count = COUNT, op = ReduceOp.SUM)
    void step();
}
