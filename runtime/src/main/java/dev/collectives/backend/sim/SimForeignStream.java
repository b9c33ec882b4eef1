package dev.collectives.backend.sim;

/**
 * A stream that a framework owns on a simulated device, made outside any communicator: it runs the framework's
 * work ({@link #launch}, standing for its kernels) in order with whatever communicators enqueue on it after
 * {@link SimCommunicator#wrapStream} of its {@link #handle()}.
 */
public final class SimForeignStream implements AutoCloseable {
    private final SimStream stream;

    private SimForeignStream(int device) {
        this.stream = new SimStream(null, device, "framework-device-" + device + "-stream");
    }

    /** {@code cudaStreamCreate} on {@code device} (a simulated rank's device index is its rank). */
    public static SimForeignStream create(int device) {
        return new SimForeignStream(device);
    }

    /** The handle to pass to {@code wrapStream}. */
    public long handle() {
        return stream.handle();
    }

    /**
     * Enqueues {@code kernel}: it runs on the stream's worker after everything enqueued before it, and what it
     * throws is rethrown by {@link #synchronize()} (and by the synchronize of a stream that wraps this one).
     */
    public void launch(Runnable kernel) {
        stream.enqueue(() -> kernel::run);
    }

    public void synchronize() {
        stream.synchronize();
    }

    /** {@code cudaStreamDestroy}: lets queued work finish, then stops the stream. Idempotent. */
    @Override
    public void close() {
        stream.close();
    }

    @Override
    public String toString() {
        return stream.toString();
    }
}
