package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * The tensor-parallel half of {@link HybridParallelExample}: the ranks of one tensor-parallel group gather their
 * shards into the full tensor, and reduce-scatter a full-size partial result back into shards. {@code ranks}
 * lets the processor check the sizes, and bind refuses a communicator of another size: it binds on a
 * two-rank child of a split.
 */
@CollectivePipeline(registration = Registration.LOCAL, ranks = TensorParallelShards.RANKS)
public interface TensorParallelShards {
    int RANKS = 2;
    long SHARD = 1024;

    @Buffer(type = DataType.FLOAT32, count = SHARD)
    DeviceBuffer shard();

    @Buffer(type = DataType.FLOAT32, count = SHARD * RANKS)
    DeviceBuffer full();

    @Buffer(type = DataType.FLOAT32, count = SHARD)
    DeviceBuffer reduced();

    @AllGather(send = "shard", recv = "full", sendCount = SHARD)
    void gather();

    @ReduceScatter(send = "full", recv = "reduced", recvCount = SHARD, op = ReduceOp.SUM)
    void scatter();
}
