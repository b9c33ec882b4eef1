package dev.collectives.examples.pipelines;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.ReduceScatter;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.DeviceBuffer;

/**
 * General registration of memory from a qualified custom allocator, {@link HeadroomVmmAllocator} (R11): bind
 * allocates through it, checks each allocation's handle types, sizes and alignment, and registers it.
 */
@CollectivePipeline(registration = Registration.LOCAL)
public interface CustomAllocatorReduceScatter {
    /** Sized for up to this many ranks: the reducescatter reads {@code BLOCK × ranks} elements. */
    int MAX_RANKS = 64;

    long BLOCK = 1024;

    @Buffer(
            type = DataType.FLOAT32,
            count = BLOCK * MAX_RANKS,
            allocator = Allocator.CUSTOM,
            customAllocator = HeadroomVmmAllocator.class)
    DeviceBuffer contributions();

    @Buffer(
            type = DataType.FLOAT32,
            count = BLOCK,
            allocator = Allocator.CUSTOM,
            customAllocator = HeadroomVmmAllocator.class)
    DeviceBuffer reduced();

    @ReduceScatter(send = "contributions", recv = "reduced", recvCount = BLOCK, op = ReduceOp.SUM)
    void step();
}
