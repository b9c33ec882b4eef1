package dev.collectives.examples.pipelines;

import dev.collectives.annotation.AllGather;
import dev.collectives.annotation.AllReduce;
import dev.collectives.annotation.Buffer;
import dev.collectives.annotation.CollectivePipeline;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.annotation.Registration;
import dev.collectives.annotation.Window;
import dev.collectives.runtime.DeviceBuffer;

/**
 * A symmetric window (R12): {@code shared} is {@code ncclMemAlloc}/{@code mcclMemAlloc} memory, window-registered
 * collectively at bind, at the same offset on every rank; an in-place allreduce works on it. A second step allgathers
 * each rank's address of it, so that the example can compare what the window helpers (R10) return with the real
 * addresses.
 */
@CollectivePipeline(registration = Registration.LOCAL)
public interface SymmetricWindowAllReduce {
    /** Sized for up to this many ranks: {@code addresses} holds one per rank. */
    int MAX_RANKS = 64;

    long COUNT = 4096;

    @Window(symmetric = true)
    @Buffer(type = DataType.FLOAT32, count = 1 << 16)
    DeviceBuffer shared();

    @Buffer(type = DataType.INT64, count = 1)
    DeviceBuffer myAddress();

    @Buffer(type = DataType.INT64, count = MAX_RANKS)
    DeviceBuffer addresses();

    @AllReduce(send = "shared", recv = "shared", count = COUNT, op = ReduceOp.SUM)
    void step();

    @AllGather(send = "myAddress", recv = "addresses", sendCount = 1)
    void shareAddresses();
}
