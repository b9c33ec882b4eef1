package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.internal.CallArguments;
import dev.collectives.runtime.spi.FlightRecorder;

/**
 * One rank's collectives and point-to-point calls: each checks its arguments in Java and is then one native call on
 * primitive handles, allocating nothing. During a capture, the stream remembers the memory each op uses (R5).
 */
final class DeviceCollectives {
    private final NativeComm handle;
    private final NativeLibrary library;
    private final NativeApi api;
    private final long lib;
    private final int rank;
    private final int size;
    private final CallArguments arguments;
    private final FlightRecorder recorder;

    DeviceCollectives(DeviceCommunicator comm, NativeComm handle, CallArguments arguments, FlightRecorder recorder) {
        this.handle = handle;
        this.library = handle.library();
        this.api = library.api;
        this.lib = library.lib;
        this.rank = comm.rank();
        this.size = comm.size();
        this.arguments = arguments;
        this.recorder = recorder;
    }

    void allReduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        arguments.reduceOp("allReduce", op, type);
        arguments.elements("allReduce", count, type, false);
        long sendAddress = address("allReduce", send, sendOffset, count, type, "send");
        long recvAddress = address("allReduce", recv, recvOffset, count, type, "recv");
        recorder.enqueued("allReduce", send, sendOffset, recv, recvOffset, count, type, -1, s, s.capturing(), null);
        done(
                api.allReduce(lib, sendAddress, recvAddress, count, type.code(), op.code(), handle.handle(), s.handle),
                "AllReduce",
                type,
                s,
                send,
                recv);
    }

    void allGather(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long sendCount,
            DataType type,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        arguments.elements("allGather", sendCount, type, false);
        long sendAddress = address("allGather", send, sendOffset, sendCount, type, "send");
        long recvAddress = address(
                "allGather", recv, recvOffset, arguments.elements("allGather", sendCount, type, true), type, "recv");
        recorder.enqueued("allGather", send, sendOffset, recv, recvOffset, sendCount, type, -1, s, s.capturing(), null);
        done(
                api.allGather(lib, sendAddress, recvAddress, sendCount, type.code(), handle.handle(), s.handle),
                "AllGather",
                type,
                s,
                send,
                recv);
    }

    void reduceScatter(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount,
            DataType type,
            ReduceOp op,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        arguments.reduceOp("reduceScatter", op, type);
        arguments.elements("reduceScatter", recvCount, type, false);
        long sendAddress = address(
                "reduceScatter",
                send,
                sendOffset,
                arguments.elements("reduceScatter", recvCount, type, true),
                type,
                "send");
        long recvAddress = address("reduceScatter", recv, recvOffset, recvCount, type, "recv");
        recorder.enqueued(
                "reduceScatter", send, sendOffset, recv, recvOffset, recvCount, type, -1, s, s.capturing(), null);
        done(
                api.reduceScatter(
                        lib, sendAddress, recvAddress, recvCount, type.code(), op.code(), handle.handle(), s.handle),
                "ReduceScatter",
                type,
                s,
                send,
                recv);
    }

    void broadcast(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            int root,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        arguments.elements("broadcast", count, type, false);
        arguments.peer("broadcast", "root", root);
        long sendAddress = address("broadcast", send, sendOffset, count, type, "send");
        long recvAddress = address("broadcast", recv, recvOffset, count, type, "recv");
        recorder.enqueued("broadcast", send, sendOffset, recv, recvOffset, count, type, root, s, s.capturing(), null);
        done(
                api.broadcast(lib, sendAddress, recvAddress, count, type.code(), root, handle.handle(), s.handle),
                "Broadcast",
                type,
                s,
                send,
                recv);
    }

    void reduce(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            ReduceOp op,
            int root,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        arguments.reduceOp("reduce", op, type);
        arguments.elements("reduce", count, type, false);
        arguments.peer("reduce", "root", root);
        long sendAddress = address("reduce", send, sendOffset, count, type, "send");
        long recvAddress = address("reduce", recv, recvOffset, count, type, "recv");
        recorder.enqueued("reduce", send, sendOffset, recv, recvOffset, count, type, root, s, s.capturing(), null);
        done(
                api.reduce(
                        lib, sendAddress, recvAddress, count, type.code(), op.code(), root, handle.handle(), s.handle),
                "Reduce",
                type,
                s,
                send,
                recv);
    }

    /** {@code AlltoAll} where the library has it, else the equivalent group of sends and receives. */
    void allToAll(
            DeviceBuffer send,
            long sendOffset,
            DeviceBuffer recv,
            long recvOffset,
            long count,
            DataType type,
            Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = arguments.bytes("allToAll", count, type);
        long total = arguments.elements("allToAll", count, type, true);
        long sendAddress = address("allToAll", send, sendOffset, total, type, "send");
        long recvAddress = address("allToAll", recv, recvOffset, total, type, "recv");
        recorder.enqueued("allToAll", send, sendOffset, recv, recvOffset, count, type, -1, s, s.capturing(), null);
        if (library.has(NativeLibrary.Slots.ALL_TO_ALL)) {
            done(
                    api.allToAll(lib, sendAddress, recvAddress, count, type.code(), handle.handle(), s.handle),
                    "AlltoAll",
                    type,
                    s,
                    send,
                    recv);
            return;
        }
        groupStart();
        try {
            for (int peer = 0; peer < size; peer++) {
                done(
                        api.send(lib, sendAddress + peer * bytes, count, type.code(), peer, handle.handle(), s.handle),
                        "Send",
                        type,
                        s,
                        send,
                        send);
                done(
                        api.recv(lib, recvAddress + peer * bytes, count, type.code(), peer, handle.handle(), s.handle),
                        "Recv",
                        type,
                        s,
                        recv,
                        recv);
            }
        } finally {
            groupEnd();
        }
    }

    void send(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        DeviceStream s = enqueue(stream);
        arguments.peer("send", "peer", peer);
        arguments.elements("send", count, type, false);
        long address = address("send", buffer, offset, count, type, "send");
        recorder.enqueued("send", buffer, offset, null, 0, count, type, peer, s, s.capturing(), null);
        done(
                api.send(lib, address, count, type.code(), peer, handle.handle(), s.handle),
                "Send",
                type,
                s,
                buffer,
                buffer);
    }

    void recv(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        DeviceStream s = enqueue(stream);
        arguments.peer("recv", "peer", peer);
        arguments.elements("recv", count, type, false);
        long address = address("recv", buffer, offset, count, type, "recv");
        recorder.enqueued("recv", null, 0, buffer, offset, count, type, peer, s, s.capturing(), null);
        done(
                api.recv(lib, address, count, type.code(), peer, handle.handle(), s.handle),
                "Recv",
                type,
                s,
                buffer,
                buffer);
    }

    void groupStart() {
        library.check(api.groupStart(lib), rank, handle.handle(), "GroupStart");
        NativeComm.groupStarted();
    }

    /** Where non-blocking communicators answer "in progress", waits until each that enqueued in the group is done. */
    void groupEnd() {
        handle.groupEnded(api.groupEnd(lib), library.dialect.ccl("GroupEnd"));
    }

    private DeviceStream enqueue(Stream stream) {
        handle.requireOpen();
        handle.enqueuing();
        DeviceStream onto = DeviceStream.of(stream, rank);
        onto.issuedBy(handle);
        return onto;
    }

    /**
     * The device address {@code offset} elements of {@code type} into {@code buffer}, which must hold the op's
     * {@code elements} from there; a primitive, so an op at an offset allocates nothing.
     */
    private long address(String call, DeviceBuffer buffer, long offset, long elements, DataType type, String role) {
        arguments.room(call, role, buffer, true, offset, elements, type);
        return buffer.address() + offset * type.size();
    }

    /** The op's native answer {@code rc}: "in progress" waits until the communicator has it, a failure throws. */
    private void done(int rc, String call, DataType type, DeviceStream stream, DeviceBuffer a, DeviceBuffer b) {
        if (rc != 0) {
            handle.complete(rc, library.dialect.ccl(call) + " of " + library.dialect.typeName(type));
        }
        stream.used(a.memory());
        stream.used(b.memory());
    }
}
