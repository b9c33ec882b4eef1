package dev.collectives.tools.bench;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.device.internal.NativeBaseline;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;

/** The collectives the device benchmarks time, float32 and sum, with nccl-tests' size and bandwidth rules. */
enum Op {
    ALLREDUCE, ALLGATHER, REDUCESCATTER;

    /** Elements per rank's call for a row of {@code bytes}: the buffer reduced, or gathered/scattered over all ranks. */
    long count(long bytes, int ranks) {
        return this == ALLREDUCE ? bytes / 4 : bytes / 4 / ranks;
    }

    /** The bytes a row names: the buffer reduced, or gathered/scattered over all ranks. */
    long totalBytes(long count, int ranks) {
        return this == ALLREDUCE ? count * 4 : count * 4 * ranks;
    }

    /** busbw = algbw × this, as nccl-tests computes it. */
    double busFactor(int ranks) {
        return this == ALLREDUCE ? 2.0 * (ranks - 1) / ranks : (double) (ranks - 1) / ranks;
    }

    /** "sum" or "none", the redop column of nccl-tests. */
    String redop() {
        return this == ALLGATHER ? "none" : "sum";
    }

    /** Bytes of each rank's send and recv buffers for rows up to {@code maxBytes}. */
    long sendBytes(long maxBytes, int ranks) {
        return this == ALLGATHER ? maxBytes / ranks : maxBytes;
    }

    long recvBytes(long maxBytes, int ranks) {
        return this == REDUCESCATTER ? maxBytes / ranks : maxBytes;
    }

    /** One Java call of this op. */
    void call(Communicator comm, DeviceBuffer send, DeviceBuffer recv, long count, Stream stream) {
        switch (this) {
            case ALLREDUCE:
                comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream);
                break;
            case ALLGATHER:
                comm.allGather(send, recv, count, DataType.FLOAT32, stream);
                break;
            default:
                comm.reduceScatter(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream);
        }
    }

    /** {@code iters} calls of this op by the native loop, on the same communicator, buffers and stream. */
    void callNative(Communicator comm, DeviceBuffer send, DeviceBuffer recv, long count, Stream stream, int iters) {
        NativeBaseline baseline = NativeBaseline.of(comm);
        switch (this) {
            case ALLREDUCE:
                baseline.allReduceLoop(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream, iters);
                break;
            case ALLGATHER:
                baseline.allGatherLoop(send, recv, count, DataType.FLOAT32, stream, iters);
                break;
            default:
                baseline.reduceScatterLoop(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream, iters);
        }
    }
}
