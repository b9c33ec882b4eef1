package dev.collectives.annotation;

/**
 * How a pipeline's buffers are registered with the communicator (the NCCL/MCCL user-buffer-registration guide's graph
 * or local registration).
 */
public enum Registration {
    /** Ops captured into a CUDA/MUSA graph; buffers registered at capture, deregistered when the graph is destroyed (R4, R5). */
    GRAPH,
    /**
     * {@code ncclCommRegister}/{@code mcclCommRegister} once at bind, reuse, {@code ncclCommDeregister}/{@code
     * mcclCommDeregister} at close (R6).
     */
    LOCAL,
    /** No registration: the library copies through its internal buffers. */
    NONE
}
