package dev.collectives.backend.device;

import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.spi.HostStaging;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

import org.bytedeco.javacpp.Pointer;

/**
 * Pinned host memory ({@code cudaMallocHost}/{@code musaMallocHost}) of one communicator's device, copied to and
 * from with {@code MemcpyAsync} on a stream: the copies are ordered with the stream's collectives and return at once.
 */
final class PinnedStaging implements HostStaging {
    private final DeviceCommunicator comm;
    private final long address;
    private final ByteBuffer buffer;
    private boolean closed;

    private PinnedStaging(DeviceCommunicator comm, long address, long bytes) {
        this.comm = comm;
        this.address = address;
        this.buffer = new Pointer() {
            {
                this.address = PinnedStaging.this.address;
                this.limit = bytes;
                this.capacity = bytes;
            }
        }.asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /** Pinned memory of {@code bytes} on {@code comm}'s device; empty where the library lacks the calls. */
    static Optional<HostStaging> allocate(DeviceCommunicator comm, long bytes) {
        NativeLibrary n = comm.library();
        if (!n.has(NativeLibrary.Slots.MALLOC_HOST) || !n.has(NativeLibrary.Slots.FREE_HOST)
                || !n.has(NativeLibrary.Slots.MEMCPY_ASYNC)) {
            return Optional.empty();
        }
        long[] out = new long[1];
        n.checkRuntime(NativeShim.runtimeMallocHost(n.lib, comm.device(), bytes, out), comm.rank(), "MallocHost");
        return Optional.of(new PinnedStaging(comm, out[0], bytes));
    }

    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public void copyTo(long from, DeviceBuffer dst, long bytes, Stream stream) {
        copy(dst.address(), address + from, bytes, stream);
    }

    @Override
    public void copyFrom(DeviceBuffer src, long to, long bytes, Stream stream) {
        copy(address + to, src.address(), bytes, stream);
    }

    private void copy(long dst, long src, long bytes, Stream stream) {
        if (closed) {
            throw new IllegalStateException("host staging is closed");
        }
        NativeLibrary n = comm.library();
        n.checkRuntime(NativeShim.memcpyAsync(n.lib, comm.device(), dst, src, bytes, comm.streamOf(stream).handle),
                comm.rank(), "MemcpyAsync");
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        NativeLibrary n = comm.library();
        n.checkRuntime(NativeShim.runtimeFreeHost(n.lib, address), comm.rank(), "FreeHost");
    }
}
