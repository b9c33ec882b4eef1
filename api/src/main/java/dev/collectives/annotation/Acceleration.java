package dev.collectives.annotation;

/** Accelerated algorithms a pipeline asks registration to serve. */
public enum Acceleration {
    /** MTLink SHARP (NVLink SHARP, "NVLS", on NVIDIA): needs ncclMemAlloc/mcclMemAlloc or qualified memory (R3). */
    MTLINK_SHARP,
    /** IB SHARP (CollNet): 1 rank per node, allreduce/reducescatter/allgather only, any allocator (R8). */
    IB_SHARP
}
