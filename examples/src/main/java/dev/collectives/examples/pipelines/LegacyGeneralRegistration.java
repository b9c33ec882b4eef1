package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * General (intra-node P2P) registration of buffers from the legacy {@code cudaMalloc}/{@code musaMalloc} (R9): the
 * pipeline opts in with {@code allowLegacyRegistration}, and bind still refuses unless {@code
 * NCCL_LEGACY_CUDA_REGISTER=1}/{@code MCCL_LEGACY_MUSA_REGISTER=1} is set, because such buffers can hang or crash on
 * abort.
 */
@CollectivePipeline(registration = Registration.LOCAL, allowLegacyRegistration = true)
public interface LegacyGeneralRegistration {
    /** Sized for up to this many ranks: the allgather writes {@code SHARD × ranks} elements. */
    int MAX_RANKS = 64;

    long SHARD = 1024;

    @Buffer(type = DataType.FLOAT32, count = SHARD, allocator = Allocator.LEGACY)
    DeviceBuffer shard();

    @Buffer(type = DataType.FLOAT32, count = SHARD * MAX_RANKS, allocator = Allocator.LEGACY)
    DeviceBuffer gathered();

    @AllGather(send = "shard", recv = "gathered", sendCount = SHARD)
    void gather();
}
