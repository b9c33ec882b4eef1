package dev.collectives.tools.bench;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.device.NativeLoop;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;

/**
 * The native baseline that the benchmarks time the Java calls against: the same op enqueued {@code iters} times by
 * a loop in C ({@link NativeLoop}), in this process, on the same communicator, buffers and stream, so that a
 * comparison sees only the per-call path, not a different process, allocation or order.
 */
final class NativeBaseline {
    private final Communicator comm;

    private NativeBaseline(Communicator comm) {
        this.comm = comm;
    }

    /** Whether {@code comm} belongs to a native backend, where the baseline runs. */
    static boolean supports(Communicator comm) {
        return NativeLoop.supports(comm);
    }

    /** The baseline on {@code comm}, a native backend's communicator. */
    static NativeBaseline of(Communicator comm) {
        if (!supports(comm)) {
            throw new IllegalArgumentException(comm + " is not a communicator of a native backend");
        }
        return new NativeBaseline(comm);
    }

    /**
     * {@code iters} × the library's function of {@code kind}, one of {@link NativeLoop#collectives()}, at
     * {@code root} where it has one.
     */
    void loop(
            OpKind kind,
            DeviceBuffer send,
            DeviceBuffer recv,
            long count,
            DataType type,
            ReduceOp op,
            int root,
            Stream stream,
            int iters) {
        NativeLoop.enqueue(comm, kind, send, recv, count, type, op, root, stream, iters);
    }

    /** {@code iters} × {@code cudaGraphLaunch(exec, stream)}. */
    void launchLoop(GraphExec exec, Stream stream, int iters) {
        NativeLoop.launch(comm, exec, stream, iters);
    }
}
