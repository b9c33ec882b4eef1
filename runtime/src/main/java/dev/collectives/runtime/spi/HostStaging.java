package dev.collectives.runtime.spi;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;

import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * Host memory that the device reads and writes in place (pinned host memory mapped into the device on a GPU), so
 * that a small exchange the runtime makes on a pipeline's stream (the per-call check's digests) is one collective
 * straight from and into host memory and one wait for the stream, without a copy on either side of it. The host
 * reads what the device wrote once the stream has been synchronized. Closed by its owner, after the last stream
 * that used it has been synchronized. Idempotent.
 */
public interface HostStaging extends AutoCloseable {
    /** The memory, {@code bytes} long, in native order, as the host reads and writes it. */
    ByteBuffer buffer();

    /**
     * The same memory as the communicator's collectives take it: {@code count} elements of {@code type} from byte
     * {@code offset} of {@link #buffer()}. It owns nothing (closing it frees nothing), and is not to be registered
     * or captured.
     */
    DeviceBuffer deviceView(long offset, DataType type, long count);

    @Override
    void close();

    /** A communicator that offers host staging where its library can (a backend's communicator implements it). */
    interface Provider {
        /** Staging of {@code bytes} for the streams of this communicator; empty where the library cannot map it. */
        Optional<HostStaging> allocateStaging(long bytes);
    }

    /** {@code comm}'s staging of {@code bytes}, if it offers one. */
    static Optional<HostStaging> of(Communicator comm, long bytes) {
        return comm instanceof Provider ? ((Provider) comm).allocateStaging(bytes) : Optional.empty();
    }
}
