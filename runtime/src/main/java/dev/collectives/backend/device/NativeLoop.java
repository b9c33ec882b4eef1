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
        prepare(comm, kind, send, recv, count, type, op, root, stream).run(iters);
    }

    /** {@code iters} × {@code cudaGraphLaunch(exec, stream)}. */
    public static void launch(Communicator comm, GraphExec exec, Stream stream, int iters) {
        prepareLaunch(comm, exec, stream).run(iters);
    }

    /**
     * The loop of {@link #enqueue}, its arguments read once: each {@link Prepared#run} is then the lock against an
     * abort and one JNI crossing, so that a benchmark calling it for one op at a time times the crossing.
     */
    public static Prepared prepare(
            Communicator comm,
            OpKind kind,
            DeviceBuffer send,
            DeviceBuffer recv,
            long count,
            DataType type,
            ReduceOp op,
            int root,
            Stream stream) {
        if (!COLLECTIVES.contains(kind)) {
            throw new IllegalArgumentException("the native loop runs " + COLLECTIVES + ", not " + kind);
        }
        DeviceCommunicator device = of(comm);
        device.sendRecvForm(kind).ifPresent(why -> {
            throw new IllegalArgumentException("the native loop has no " + kind.method() + " here: " + why);
        });
        NativeLibrary library = device.library();
        return new Prepared(
                device.nativeComm(),
                kind.ordinal(),
                send.address(),
                recv.address(),
                count,
                type.code(),
                kind.reduces() ? op.code() : 0,
                root,
                DeviceStream.of(stream, comm.rank()).handle,
                () -> library.dialect.ccl(kind.cName()) + " of " + library.dialect.typeName(type));
    }

    /** The loop of {@link #launch}, its arguments read once (see {@link #prepare}). */
    public static Prepared prepareLaunch(Communicator comm, GraphExec exec, Stream stream) {
        DeviceCommunicator device = of(comm);
        return new Prepared(
                device.nativeComm(),
                GRAPH_LAUNCH,
                DeviceGraph.execHandle(exec),
                0,
                0,
                0,
                0,
                0,
                DeviceStream.of(stream, comm.rank()).handle,
                null);
    }

    /** A native loop of one op or graph launch on fixed arguments. */
    public static final class Prepared implements NativeComm.HandleCall {
        private final NativeComm owner;
        private final NativeLibrary library;
        private final int kind;
        private final long send;
        private final long recv;
        private final long count;
        private final int type;
        private final int op;
        private final int root;
        private final long stream;
        /** The op's call as failures name it; null for a graph launch. */
        private final java.util.function.Supplier<String> call;

        private int iters;

        private Prepared(
                NativeComm owner,
                int kind,
                long send,
                long recv,
                long count,
                int type,
                int op,
                int root,
                long stream,
                java.util.function.Supplier<String> call) {
            this.owner = owner;
            this.library = owner.library();
            this.kind = kind;
            this.send = send;
            this.recv = recv;
            this.count = count;
            this.type = type;
            this.op = op;
            this.root = root;
            this.stream = stream;
            this.call = call;
        }

        /** {@code iters} enqueues in one native call, on the calling thread (not thread-safe: one thread runs it). */
        public void run(int iters) {
            this.iters = iters;
            int rc = owner.onHandle(this);
            if (rc == 0) {
                return;
            }
            if (call == null) {
                library.checkRuntime(rc, owner.rank(), "GraphLaunch");
            } else {
                throw library.cclFailure(rc, owner.rank(), owner.handle(), call.get());
            }
        }

        @Override
        public int on(long handle) {
            return library.api.benchEnqueue(
                    library.lib, kind, send, recv, count, type, op, root, handle, stream, iters);
        }
    }

    private static DeviceCommunicator of(Communicator comm) {
        if (!supports(comm)) {
            throw new IllegalArgumentException(comm + " is not a communicator of a native backend");
        }
        return (DeviceCommunicator) comm;
    }
}
