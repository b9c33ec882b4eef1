package dev.collectives.tools.bench;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;

/**
 * The buffers of one size and placement. Out of place: send and recv apart. In place, as nccl-tests lays it
 * out: allreduce sends from recv; allgather sends from this rank's block of recv; reducescatter receives into
 * this rank's block of send.
 */
final class Placement {
    final Op op;
    final Communicator comm;
    final DeviceBuffer send;
    final DeviceBuffer recv;
    final long count;

    Placement(Op op, Communicator comm, DeviceBuffer sendBytes, DeviceBuffer recvBytes, long count, boolean inPlace) {
        this.op = op;
        this.comm = comm;
        this.count = count;
        int ranks = comm.size();
        long block = count * 4 * comm.rank();
        long sendCount = op.kind().sendExtent().elements(count, ranks);
        long recvCount = op.kind().recvExtent().elements(count, ranks);
        DeviceBuffer recvF = recvBytes.view(0, DataType.FLOAT32, recvCount);
        if (!inPlace) {
            this.send = sendBytes.view(0, DataType.FLOAT32, sendCount);
            this.recv = recvF;
        } else if (op.kind() == OpKind.ALL_REDUCE) {
            this.send = recvF;
            this.recv = recvF;
        } else if (op.kind() == OpKind.ALL_GATHER) {
            this.send = recvBytes.view(block, DataType.FLOAT32, count);
            this.recv = recvF;
        } else {
            this.send = sendBytes.view(0, DataType.FLOAT32, sendCount);
            this.recv = sendBytes.view(block, DataType.FLOAT32, count);
        }
    }

    /** Rank r's element i before the op: small integers, so that every sum is exact in float32. */
    static float value(int rank, long index) {
        return rank + 1 + (float) (index % 13);
    }

    /** Fills the inputs, runs the op once through {@code side}, and counts the elements that came out wrong. */
    long check(Stream stream, Batch side) {
        int ranks = comm.size();
        int rank = comm.rank();
        float[] input = new float[Math.toIntExact(send.count())];
        for (int i = 0; i < input.length; i++) {
            input[i] = value(rank, i);
        }
        if (op.kind() == OpKind.ALL_GATHER && send.address() != recv.address()) {
            recv.copyFromHost(new float[Math.toIntExact(recv.count())]);
        }
        send.copyFromHost(input);
        side.issue(stream, 1);
        stream.synchronize();
        float[] output = new float[Math.toIntExact(recv.count())];
        recv.copyToHost(output);
        long wrongElements = 0;
        for (int i = 0; i < output.length; i++) {
            if (output[i] != expected(i, ranks, rank)) {
                wrongElements++;
            }
        }
        return wrongElements;
    }

    private float expected(int i, int ranks, int rank) {
        if (op.kind() == OpKind.ALL_GATHER) {
            return value((int) (i / count), i % count);
        }
        long index = op.kind() == OpKind.REDUCE_SCATTER ? rank * count + i : i;
        float sum = 0;
        for (int q = 0; q < ranks; q++) {
            sum += value(q, index);
        }
        return sum;
    }
}
