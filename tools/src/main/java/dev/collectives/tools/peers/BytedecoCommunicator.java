package dev.collectives.tools.peers;

import dev.collectives.runtime.UniqueId;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nccl;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclUniqueId;
import org.bytedeco.javacpp.BytePointer;

/**
 * An NCCL communicator that another Java library made and owns: bytedeco's NCCL binding
 * ({@code org.bytedeco.cuda.global.nccl}) forms it from a unique id with {@code ncclCommInitRank} and destroys it with
 * {@code ncclCommDestroy}, as a framework built on that binding would. Collectives only wraps its handle.
 */
final class BytedecoCommunicator implements AutoCloseable {
    private final ncclComm comm = new ncclComm();
    private boolean destroyed;

    /** This rank's communicator on {@code device}, formed with the other ranks from {@code id}. */
    BytedecoCommunicator(UniqueId id, int size, int rank, int device) {
        check(cudart.cudaSetDevice(device), "cudaSetDevice");
        try (ncclUniqueId given = new ncclUniqueId()) {
            new BytePointer(given).put(id.bytes());
            check(nccl.ncclCommInitRank(comm, size, given, rank), "ncclCommInitRank");
        }
    }

    /** The {@code ncclComm_t}, for {@code Backend.wrapCommunicator}. */
    long handle() {
        return comm.address();
    }

    /** The owner's end of the communicator: {@code ncclCommDestroy}, once. */
    @Override
    public void close() {
        if (!destroyed) {
            destroyed = true;
            check(nccl.ncclCommDestroy(comm), "ncclCommDestroy");
        }
    }

    private static void check(int result, String call) {
        if (result != 0) {
            throw new IllegalStateException("bytedeco's binding: " + call + " returned " + result);
        }
    }
}
