package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;
import java.util.Arrays;
import java.util.List;

/**
 * Not API: the one entry the project's benchmarks have into this backend, {@code cx_bench_enqueue}. It enqueues
 * one op {@code iters} times by a loop in C, in this process, on the caller's communicator, buffers and stream, so
 * that the benchmarks time the Java calls against a baseline that differs only in the per-call path. It has to be
 * native: a loop in Java over the same calls would be the Java side again. One JNI call per loop; no checks beyond
 * the library's result code. It may change without notice.
 */
public final class NativeLoop {
    /** The ops {@code cx_bench_enqueue} loops: every collective of the catalogue, by its number ({@code CX_OP_*}). */
    private static final List<OpKind> COLLECTIVES = Arrays.stream(OpKind.values())
            .filter(kind -> !kind.isPointToPoint())
            .toList();

    /** The loop's kind for a graph launch ({@code CX_BENCH_GRAPH_LAUNCH}). */
    private static final int GRAPH_LAUNCH = -1;

    private NativeLoop() {}

    /** The ops the native loop runs, in the catalogue's order. */
    public static List<OpKind> collectives() {
        return COLLECTIVES;
    }

    /** Whether {@code comm} belongs to a native backend, where the loop runs. */
    public static boolean supports(Communicator comm) {
        return comm instanceof DeviceCommunicator;
    }

    /**
     * {@code iters} × {@code nccl<CName>(send, recv, count, type[, op][, root], comm, stream)} of {@code kind}, one
     * of {@link #collectives()}; {@code op} only where it reduces, {@code root} where it has one. A function the
     * library lacks (where the communicator issues the op as sends and receives) has no loop.
     */
    public static void enqueue(
            Communicator comm,
            OpKind kind,
            DeviceBuffer send,
            DeviceBuffer recv,
            long count,
            DataType type,
            ReduceOp op,
            int root,
            Stream stream,
            int iters) {
        if (!COLLECTIVES.contains(kind)) {
            throw new IllegalArgumentException("the native loop runs " + COLLECTIVES + ", not " + kind);
        }
        DeviceCommunicator device = of(comm);
        device.sendRecvForm(kind).ifPresent(why -> {
            throw new IllegalArgumentException("the native loop has no " + kind.method() + " here: " + why);
        });
        NativeLibrary library = device.library();
        NativeComm owner = device.nativeComm();
        long onto = DeviceStream.of(stream, comm.rank()).handle;
        int rc = owner.onHandle(handle -> library.api.benchEnqueue(
                library.lib,
                kind.ordinal(),
                send.address(),
                recv.address(),
                count,
                type.code(),
                kind.reduces() ? op.code() : 0,
                root,
                handle,
                onto,
                iters));
        if (rc != 0) {
            throw library.cclFailure(
                    rc,
                    comm.rank(),
                    owner.handle(),
                    library.dialect.ccl(kind.cName()) + " of " + library.dialect.typeName(type));
        }
    }

    /** {@code iters} × {@code cudaGraphLaunch(exec, stream)}. */
    public static void launch(Communicator comm, GraphExec exec, Stream stream, int iters) {
        DeviceCommunicator device = of(comm);
        NativeLibrary library = device.library();
        long graph = DeviceGraph.execHandle(exec);
        long onto = DeviceStream.of(stream, comm.rank()).handle;
        int rc = device.nativeComm()
                .onHandle(handle ->
                        library.api.benchEnqueue(library.lib, GRAPH_LAUNCH, graph, 0, 0, 0, 0, 0, handle, onto, iters));
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
