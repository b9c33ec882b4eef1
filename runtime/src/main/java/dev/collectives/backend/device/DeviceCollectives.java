package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;

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

    DeviceCollectives(DeviceCommunicator comm, NativeComm handle) {
        this.handle = handle;
        this.library = handle.library();
        this.api = library.api;
        this.lib = library.lib;
        this.rank = comm.rank();
        this.size = comm.size();
    }

    void allReduce(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                   DataType type, ReduceOp op, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = count * type.size();
        long sendAddress = address(send, sendOffset, bytes, type, "send");
        long recvAddress = address(recv, recvOffset, bytes, type, "recv");
        done(api.allReduce(lib, sendAddress, recvAddress, count, type.code(), op.code(), handle.handle(), s.handle),
                "AllReduce", type, s, send, recv);
    }

    void allGather(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long sendCount,
                   DataType type, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = sendCount * type.size();
        long sendAddress = address(send, sendOffset, bytes, type, "send");
        long recvAddress = address(recv, recvOffset, bytes * size, type, "recv");
        done(api.allGather(lib, sendAddress, recvAddress, sendCount, type.code(), handle.handle(), s.handle),
                "AllGather", type, s, send, recv);
    }

    void reduceScatter(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long recvCount,
                       DataType type, ReduceOp op, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = recvCount * type.size();
        long sendAddress = address(send, sendOffset, bytes * size, type, "send");
        long recvAddress = address(recv, recvOffset, bytes, type, "recv");
        done(api.reduceScatter(lib, sendAddress, recvAddress, recvCount, type.code(), op.code(), handle.handle(),
                s.handle), "ReduceScatter", type, s, send, recv);
    }

    void broadcast(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                   DataType type, int root, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = count * type.size();
        peer(root, "root");
        long sendAddress = address(send, sendOffset, bytes, type, "send");
        long recvAddress = address(recv, recvOffset, bytes, type, "recv");
        done(api.broadcast(lib, sendAddress, recvAddress, count, type.code(), root, handle.handle(), s.handle),
                "Broadcast", type, s, send, recv);
    }

    void reduce(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                DataType type, ReduceOp op, int root, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = count * type.size();
        peer(root, "root");
        long sendAddress = address(send, sendOffset, bytes, type, "send");
        long recvAddress = address(recv, recvOffset, bytes, type, "recv");
        done(api.reduce(lib, sendAddress, recvAddress, count, type.code(), op.code(), root, handle.handle(),
                s.handle), "Reduce", type, s, send, recv);
    }

    /** {@code AlltoAll} where the library has it, else the equivalent group of sends and receives. */
    void allToAll(DeviceBuffer send, long sendOffset, DeviceBuffer recv, long recvOffset, long count,
                  DataType type, Stream stream) {
        DeviceStream s = enqueue(stream);
        long bytes = count * type.size();
        long sendAddress = address(send, sendOffset, bytes * size, type, "send");
        long recvAddress = address(recv, recvOffset, bytes * size, type, "recv");
        if (library.has(NativeLibrary.Slots.ALL_TO_ALL)) {
            done(api.allToAll(lib, sendAddress, recvAddress, count, type.code(), handle.handle(), s.handle),
                    "AlltoAll", type, s, send, recv);
            return;
        }
        groupStart();
        try {
            for (int peer = 0; peer < size; peer++) {
                done(api.send(lib, sendAddress + peer * bytes, count, type.code(), peer, handle.handle(), s.handle),
                        "Send", type, s, send, send);
                done(api.recv(lib, recvAddress + peer * bytes, count, type.code(), peer, handle.handle(), s.handle),
                        "Recv", type, s, recv, recv);
            }
        } finally {
            groupEnd();
        }
    }

    void send(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        DeviceStream s = enqueue(stream);
        peer(peer, "peer");
        long address = address(buffer, offset, count * type.size(), type, "send");
        done(api.send(lib, address, count, type.code(), peer, handle.handle(), s.handle), "Send", type, s, buffer,
                buffer);
    }

    void recv(DeviceBuffer buffer, long offset, long count, DataType type, int peer, Stream stream) {
        DeviceStream s = enqueue(stream);
        peer(peer, "peer");
        long address = address(buffer, offset, count * type.size(), type, "recv");
        done(api.recv(lib, address, count, type.code(), peer, handle.handle(), s.handle), "Recv", type, s, buffer,
                buffer);
    }

    void groupStart() {
        library.check(api.groupStart(lib), rank, handle.handle(), "GroupStart");
    }

    void groupEnd() {
        library.check(api.groupEnd(lib), rank, handle.handle(), "GroupEnd");
    }

    private DeviceStream enqueue(Stream stream) {
        handle.requireOpen();
        return DeviceStream.of(stream, rank);
    }

    // ---- argument checks ----------------------------------------------------------------------------------------

    long bytes(DataType type, long count) {
        if (count <= 0) {
            throw CollectivesException.violation(Rule.R13_TYPES, rank, "count " + count + " of " + type
                    + " is not positive");
        }
        try {
            return Math.multiplyExact(count, (long) type.size());
        } catch (ArithmeticException e) {
            throw CollectivesException.violation(Rule.R13_TYPES, rank, count + " x " + type + " overflows");
        }
    }

    /**
     * The device address {@code offset} elements of {@code type} into {@code buffer}, which must hold the op's
     * {@code bytes} from there; a primitive, so an op at an offset allocates nothing.
     */
    private long address(DeviceBuffer buffer, long offset, long bytes, DataType type, String role) {
        long room = buffer.sizeBytes();
        if (buffer.memory().isClosed()) {
            throw CollectivesException.usage(rank, role + " buffer " + buffer + " was freed");
        }
        if (offset < 0 || bytes < 0 || bytes > room || offset > (room - bytes) / type.size()) {
            throw CollectivesException.usage(rank, role + " buffer " + buffer + " holds fewer than the " + bytes
                    + " bytes the op needs" + (offset == 0 ? "" : " from element " + offset + " of " + type));
        }
        return buffer.address() + offset * type.size();
    }

    private void peer(int peer, String what) {
        if (peer < 0 || peer >= size) {
            throw CollectivesException.usage(rank, what + " " + peer + " is not a rank of this " + size
                    + "-rank communicator");
        }
    }

    private void done(int rc, String call, DataType type, DeviceStream stream, DeviceBuffer a, DeviceBuffer b) {
        if (rc != 0) {
            throw library.cclFailure(rc, rank, handle.handle(), library.dialect.ccl(call) + " of "
                    + library.dialect.typeName(type));
        }
        stream.used(a.memory());
        stream.used(b.memory());
    }
}
