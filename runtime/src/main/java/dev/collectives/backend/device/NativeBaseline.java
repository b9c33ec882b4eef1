package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;

/**
 * The native baseline that benchmarks time the Java calls against: the same op enqueued {@code iters} times by a
 * loop in C, in this process, on the same communicator, buffers and stream — so that a comparison sees only the
 * per-call path, not a different process, allocation or order. One JNI call per loop; no checks beyond the
 * library's result code.
 */
public final class NativeBaseline {
    private static final int ALL_REDUCE = 0;
    private static final int ALL_GATHER = 1;
    private static final int REDUCE_SCATTER = 2;
    private static final int GRAPH_LAUNCH = 3;

    private NativeBaseline() {
    }

    /** Whether {@code comm} belongs to a native backend, where the baseline runs. */
    public static boolean supports(Communicator comm) {
        return comm instanceof DeviceCommunicator;
    }

    /** {@code iters} × {@code ncclAllReduce(send, recv, count, type, op, comm, stream)}. */
    public static void allReduce(Communicator comm, DeviceBuffer send, DeviceBuffer recv, long count, DataType type,
                                 ReduceOp op, Stream stream, int iters) {
        enqueue(comm, ALL_REDUCE, send.address(), recv.address(), count, type, op.code(), stream, iters, "AllReduce");
    }

    /** {@code iters} × {@code ncclAllGather(send, recv, sendCount, type, comm, stream)}. */
    public static void allGather(Communicator comm, DeviceBuffer send, DeviceBuffer recv, long sendCount,
                                 DataType type, Stream stream, int iters) {
        enqueue(comm, ALL_GATHER, send.address(), recv.address(), sendCount, type, 0, stream, iters, "AllGather");
    }

    /** {@code iters} × {@code ncclReduceScatter(send, recv, recvCount, type, op, comm, stream)}. */
    public static void reduceScatter(Communicator comm, DeviceBuffer send, DeviceBuffer recv, long recvCount,
                                     DataType type, ReduceOp op, Stream stream, int iters) {
        enqueue(comm, REDUCE_SCATTER, send.address(), recv.address(), recvCount, type, op.code(), stream, iters,
                "ReduceScatter");
    }

    /** {@code iters} × {@code cudaGraphLaunch(exec, stream)}. */
    public static void launch(Communicator comm, GraphExec exec, Stream stream, int iters) {
        DeviceCommunicator c = device(comm);
        NativeLibrary n = c.library();
        int rc = NativeShim.benchEnqueue(n.lib, GRAPH_LAUNCH, DeviceGraph.execHandle(exec), 0, 0, 0, 0, c.handle(),
                c.streamOf(stream).handle, iters);
        if (rc != 0) {
            n.checkRuntime(rc, c.rank(), "GraphLaunch");
        }
    }

    private static void enqueue(Communicator comm, int kind, long send, long recv, long count, DataType type, int op,
                                Stream stream, int iters, String call) {
        DeviceCommunicator c = device(comm);
        NativeLibrary n = c.library();
        int rc = NativeShim.benchEnqueue(n.lib, kind, send, recv, count, type.code(), op, c.handle(),
                c.streamOf(stream).handle, iters);
        if (rc != 0) {
            throw n.cclFailure(rc, c.rank(), c.handle(), n.dialect.ccl(call) + " of " + n.dialect.typeName(type));
        }
    }

    private static DeviceCommunicator device(Communicator comm) {
        if (!(comm instanceof DeviceCommunicator)) {
            throw new IllegalArgumentException(comm + " is not a communicator of a native backend");
        }
        return (DeviceCommunicator) comm;
    }
}
