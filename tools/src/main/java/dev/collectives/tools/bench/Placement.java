package dev.collectives.tools.bench;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.OpKind.Extent;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;

/**
 * The buffers of one size and placement. Out of place: send and recv apart. In place, as nccl-tests lays it out:
 * where both sides hold {@code count} (allreduce, broadcast, reduce) send is recv; where recv holds
 * {@code count × ranks} (allgather, gather) send is this rank's block of recv; where send does (reducescatter,
 * scatter) recv is this rank's block of send; alltoall sends from its recv.
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
        OpKind kind = op.kind();
        int ranks = comm.size();
        long block = count * 4 * comm.rank();
        long sendCount = kind.sendExtent().elements(count, ranks);
        long recvCount = kind.recvExtent().elements(count, ranks);
        DeviceBuffer recvF = recvBytes.view(0, DataType.FLOAT32, recvCount);
        boolean blocksInRecv = kind.recvExtent() == Extent.COUNT_TIMES_RANKS;
        boolean blocksInSend = kind.sendExtent() == Extent.COUNT_TIMES_RANKS;
        if (!inPlace) {
            this.send = sendBytes.view(0, DataType.FLOAT32, sendCount);
            this.recv = recvF;
        } else if (blocksInRecv == blocksInSend) {
            this.send = recvF;
            this.recv = recvF;
        } else if (blocksInRecv) {
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

    /**
     * Fills the inputs, runs the op once through {@code side}, and counts the elements that came out wrong: none on
     * a rank whose recv the op does not write (a reduce's or gather's off the root).
     */
    long check(Stream stream, Batch side) {
        OpKind kind = op.kind();
        int ranks = comm.size();
        int rank = comm.rank();
        float[] input = new float[Math.toIntExact(send.count())];
        for (int i = 0; i < input.length; i++) {
            input[i] = value(rank, i);
        }
        if (kind.recvExtent() == Extent.COUNT_TIMES_RANKS && send.address() != recv.address()) {
            recv.copyFromHost(new float[Math.toIntExact(recv.count())]);
        }
        send.copyFromHost(input);
        side.issue(stream, 1);
        stream.synchronize();
        if (!kind.usesRecv(rank, Op.ROOT_RANK)) {
            return 0;
        }
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

    /** Element {@code i} of rank {@code rank}'s recv after the op, from every rank's {@link #value}s. */
    private float expected(int i, int ranks, int rank) {
        OpKind kind = op.kind();
        boolean blocksInRecv = kind.recvExtent() == Extent.COUNT_TIMES_RANKS;
        boolean blocksInSend = kind.sendExtent() == Extent.COUNT_TIMES_RANKS;
        // recv block q comes from rank q (allgather, gather, alltoall); rank r's recv from block r of a send
        int from = blocksInRecv ? (int) (i / count) : Op.ROOT_RANK;
        long index = (blocksInSend ? rank * count : 0) + (blocksInRecv ? i % count : i);
        if (!kind.reduces()) {
            return value(from, index);
        }
        float sum = 0;
        for (int q = 0; q < ranks; q++) {
            sum += value(q, index);
        }
        return sum;
    }
}
