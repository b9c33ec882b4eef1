package dev.collectives.runtime.spi;

import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Stream;

import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * Host memory that a device copies to and from in stream order, without a wait (pinned memory on a GPU), so that a
 * small exchange the runtime makes on a pipeline's stream (the per-call check's digests) costs one wait for the
 * stream instead of a synchronous copy on each side of it. Closed by its owner, after the last stream that copied
 * through it has been synchronized. Idempotent.
 */
public interface HostStaging extends AutoCloseable {
    /** The memory, {@code bytes} long, in native order. */
    ByteBuffer buffer();

    /** Enqueues on {@code stream} a copy of {@code bytes} from {@code buffer()} at {@code from} into {@code dst}. */
    void copyTo(long from, DeviceBuffer dst, long bytes, Stream stream);

    /** Enqueues on {@code stream} a copy of {@code bytes} of {@code src} into {@code buffer()} at {@code to}. */
    void copyFrom(DeviceBuffer src, long to, long bytes, Stream stream);

    @Override
    void close();

    /** A communicator that offers host staging where its library can (a backend's communicator implements it). */
    interface Provider {
        /** Staging of {@code bytes} for the streams of this communicator; empty where the library cannot pin. */
        Optional<HostStaging> allocateStaging(long bytes);
    }

    /** {@code comm}'s staging of {@code bytes}, if it offers one. */
    static Optional<HostStaging> of(Communicator comm, long bytes) {
        return comm instanceof Provider ? ((Provider) comm).allocateStaging(bytes) : Optional.empty();
    }
}
