package dev.collectives.runtime.spi;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;

/**
 * Host memory that the device reads and writes in place (pinned host memory mapped into the device on a GPU), so
 * that a small exchange the runtime makes on a pipeline's stream (the per-call check's digests) is one collective
 * straight from and into host memory and one wait for the stream, without a copy on either side of it. The host
 * reads what the device wrote once the stream has been synchronized. A backend's communicator makes it
 * ({@link Provider}); its owner closes it, after the last stream that used it has been synchronized.
 */
public final class HostStaging implements AutoCloseable {
    private final DeviceBuffer onDevice;
    private final ByteBuffer onHost;

    /**
     * Staging over {@code onDevice}, the root buffer of memory that the device reaches in place and that the staging
     * owns from now on, and {@code onHost}, the same bytes as the host reads and writes them.
     */
    public HostStaging(DeviceBuffer onDevice, ByteBuffer onHost) {
        if (!onDevice.isRoot() || onHost.capacity() != onDevice.sizeBytes()) {
            throw new IllegalArgumentException("host staging needs a root buffer and the host's view of its "
                    + onDevice.sizeBytes() + " bytes, not " + onDevice + " and " + onHost);
        }
        this.onDevice = onDevice;
        this.onHost = onHost.order(ByteOrder.nativeOrder());
    }

    /** The memory, in native order, as the host reads and writes it. */
    public ByteBuffer buffer() {
        return onHost;
    }

    /**
     * The same memory as the communicator's collectives take it: {@code count} elements of {@code type} from byte
     * {@code offset} of {@link #buffer()}. It owns nothing (closing it frees nothing), and is not to be registered
     * or captured.
     */
    public DeviceBuffer deviceView(long offset, DataType type, long count) {
        return onDevice.view(offset, type, count);
    }

    /** Frees the memory. Idempotent. */
    @Override
    public void close() {
        onDevice.close();
    }

    /** A communicator that offers host staging where its library can (a backend's communicator implements it). */
    public interface Provider {
        /** Staging of {@code bytes} for the streams of this communicator; empty where the library cannot map it. */
        Optional<HostStaging> allocateStaging(long bytes);
    }

    /** {@code comm}'s staging of {@code bytes}, if it offers one. */
    public static Optional<HostStaging> of(Communicator comm, long bytes) {
        return comm instanceof Provider ? ((Provider) comm).allocateStaging(bytes) : Optional.empty();
    }
}
