package dev.collectives.backend.device;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Stream;

/**
 * A device event ({@code cudaEvent_t}/{@code musaEvent_t}) on one rank's device: recorded on a stream, it times
 * the stream's work between two records without a host round trip. The event functions are optional symbols:
 * where the runtime lacks them, creating one fails naming the symbol. The GPU tests time with it.
 */
final class DeviceEvent implements AutoCloseable {
    private static final int TIMING = 0;
    private final DeviceCommunicator comm;
    private final long handle;
    private final float[] millis = new float[1];
    private boolean closed;

    /** An event on {@code comm}'s device. */
    DeviceEvent(DeviceCommunicator comm) {
        NativeLibrary n = comm.library();
        if (!n.has(NativeLibrary.Slots.EVENT_CREATE)) {
            throw CollectivesException.usage(
                    comm.rank(), "the device runtime lacks " + n.symbol(NativeLibrary.Slots.EVENT_CREATE));
        }
        long[] out = new long[1];
        n.checkRuntime(n.api.eventCreate(n.lib, comm.device(), TIMING, out), comm.rank(), "EventCreateWithFlags");
        this.comm = comm;
        this.handle = out[0];
    }

    /** Records the event after the work enqueued on {@code stream} so far. */
    void record(Stream stream) {
        NativeLibrary n = comm.library();
        n.checkRuntime(
                n.api.eventRecord(n.lib, handle, DeviceStream.of(stream, comm.rank()).handle),
                comm.rank(),
                "EventRecord");
    }

    /** Waits until the event has completed. */
    void synchronize() {
        NativeLibrary n = comm.library();
        n.checkRuntime(n.api.eventSynchronize(n.lib, handle), comm.rank(), "EventSynchronize");
    }

    /** Milliseconds between {@code start}'s record and this one's; both must have completed. */
    float elapsedMillisSince(DeviceEvent start) {
        NativeLibrary n = comm.library();
        n.checkRuntime(n.api.eventElapsedMs(n.lib, start.handle, handle, millis), comm.rank(), "EventElapsedTime");
        return millis[0];
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            NativeLibrary n = comm.library();
            comm.nativeComm()
                    .frees()
                    .free(() -> n.checkRuntime(n.api.eventDestroy(n.lib, handle), comm.rank(), "EventDestroy"));
        }
    }
}
