package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;
import java.util.List;

/**
 * Not API: the one entry the project's benchmarks have into this backend, {@code cx_bench_enqueue}. It enqueues
 * one op {@code iters} times by a loop in C, in this process, on the caller's communicator, buffers and stream, so
 * that the benchmarks time the Java calls against a baseline that differs only in the per-call path. It has to be
 * native: a loop in Java over the same calls would be the Java side again. One JNI call per loop; no checks beyond
 * the library's result code. It may change without notice.
 */
public final class NativeLoop {
    /** The collectives of {@code cx_bench_enqueue}, by their kind there; {@code GRAPH_LAUNCH} follows them. */
    private static final List<String> COLLECTIVES = List.of("AllReduce", "AllGather", "ReduceScatter");

    private static final int GRAPH_LAUNCH = 3;

    private NativeLoop() {}

    /** Whether {@code comm} belongs to a native backend, where the loop runs. */
    public static boolean supports(Communicator comm) {
        return comm instanceof DeviceCommunicator;
    }

    /**
     * {@code iters} × {@code nccl<call>(send, recv, count, type, op, comm, stream)}, where {@code call} is
     * {@code AllReduce}, {@code AllGather} (which takes no {@code op}) or {@code ReduceScatter}.
     */
    public static void enqueue(
            Communicator comm,
            String call,
            DeviceBuffer send,
            DeviceBuffer recv,
            long count,
            DataType type,
            ReduceOp op,
            Stream stream,
            int iters) {
        int kind = COLLECTIVES.indexOf(call);
        if (kind < 0) {
            throw new IllegalArgumentException("the native loop runs " + COLLECTIVES + ", not " + call);
        }
        DeviceCommunicator device = of(comm);
        NativeLibrary library = device.library();
        long handle = device.nativeComm().handle();
        int rc = library.api.benchEnqueue(
                library.lib,
                kind,
                send.address(),
                recv.address(),
                count,
                type.code(),
                op == null ? 0 : op.code(),
                handle,
                DeviceStream.of(stream, comm.rank()).handle,
                iters);
        if (rc != 0) {
            throw library.cclFailure(
                    rc, comm.rank(), handle, library.dialect.ccl(call) + " of " + library.dialect.typeName(type));
        }
    }

    /** {@code iters} × {@code cudaGraphLaunch(exec, stream)}. */
    public static void launch(Communicator comm, GraphExec exec, Stream stream, int iters) {
        DeviceCommunicator device = of(comm);
        NativeLibrary library = device.library();
        int rc = library.api.benchEnqueue(
                library.lib,
                GRAPH_LAUNCH,
                DeviceGraph.execHandle(exec),
                0,
                0,
                0,
                0,
                device.nativeComm().handle(),
                DeviceStream.of(stream, comm.rank()).handle,
                iters);
        if (rc != 0) {
            library.checkRuntime(rc, comm.rank(), "GraphLaunch");
        }
    }

    private static DeviceCommunicator of(Communicator comm) {
        if (!supports(comm)) {
            throw new IllegalArgumentException(comm + " is not a communicator of a native backend");
        }
        return (DeviceCommunicator) comm;
    }
}
