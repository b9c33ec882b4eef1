package dev.collectives.backend.device;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.spi.HostStaging;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

import org.bytedeco.javacpp.Pointer;

/**
 * Pinned host memory ({@code cudaMallocHost}/{@code musaMallocHost}) of one communicator's device, mapped into the
 * device ({@link NativeMemory#mappedHost}): the host reads and writes it through {@link #buffer()}, the library's
 * collectives through {@link #deviceView}, with no copy between the two. The library takes such memory as a
 * collective's buffers as long as it is not registered with it; this memory never is.
 */
final class PinnedStaging implements HostStaging {
    /** The whole memory as the device reaches it; it owns the memory. */
    private final DeviceBuffer onDevice;
    private final ByteBuffer buffer;

    private PinnedStaging(NativeMemory memory) {
        this.onDevice = DeviceBuffer.root(memory, DataType.UINT8, memory.size());
        this.buffer = new Pointer() {
            {
                this.address = memory.hostAddress();
                this.limit = memory.size();
                this.capacity = memory.size();
            }
        }.asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /** Mapped pinned memory of {@code bytes} on {@code comm}'s device; empty where the library lacks the calls. */
    static Optional<HostStaging> allocate(DeviceCommunicator comm, long bytes) {
        NativeLibrary n = comm.library();
        if (!n.has(NativeLibrary.Slots.MALLOC_HOST) || !n.has(NativeLibrary.Slots.FREE_HOST)
                || !n.has(NativeLibrary.Slots.HOST_GET_DEVICE_POINTER)) {
            return Optional.empty();
        }
        return Optional.of(new PinnedStaging(NativeMemory.mappedHost(comm, bytes)));
    }

    @Override
    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public DeviceBuffer deviceView(long offset, DataType type, long count) {
        return onDevice.view(offset, type, count);
    }

    /** Frees the memory (its root buffer's close is idempotent). */
    @Override
    public void close() {
        onDevice.close();
    }
}
