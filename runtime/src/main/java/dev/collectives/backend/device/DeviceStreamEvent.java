package dev.collectives.backend.device;

import dev.collectives.runtime.spi.PolledEvent;

/**
 * The event {@link DeviceStream#record()} returns: a device event without timing, queried with
 * {@code EventQuery}; a pending query also asks the communicator for its asynchronous error (an abort included).
 */
final class DeviceStreamEvent extends PolledEvent {
    private static final int DISABLE_TIMING = 2;

    private final DeviceRank comm;
    final long handle;

    private DeviceStreamEvent(DeviceRank comm, long handle, String name) {
        super(comm.rank(), name);
        this.comm = comm;
        this.handle = handle;
    }

    /** An event recorded on {@code stream} after the work enqueued so far. */
    static DeviceStreamEvent record(DeviceRank comm, long stream) {
        NativeLibrary n = comm.library();
        n.requireSymbols(
                comm.rank(), "Stream.record()", NativeLibrary.Slots.EVENT_CREATE, NativeLibrary.Slots.EVENT_QUERY);
        long[] out = new long[1];
        n.checkRuntime(
                n.api.eventCreate(n.lib, comm.device(), DISABLE_TIMING, out), comm.rank(), "EventCreateWithFlags");
        int rc = n.api.eventRecord(n.lib, out[0], stream);
        if (rc != 0) {
            n.api.eventDestroy(n.lib, out[0]);
            n.checkRuntime(rc, comm.rank(), "EventRecord");
        }
        return new DeviceStreamEvent(comm, out[0], "event on stream 0x" + Long.toHexString(stream));
    }

    @Override
    protected boolean query() {
        comm.nativeComm().checkAsyncError();
        NativeLibrary n = comm.library();
        int rc = n.api.eventQuery(n.lib, handle);
        if (rc == NativeLibrary.NOT_READY) {
            return false;
        }
        n.checkRuntime(rc, comm.rank(), "EventQuery");
        return true;
    }

    @Override
    protected void destroyNativeEvent() {
        NativeLibrary n = comm.library();
        comm.nativeComm()
                .frees()
                .releaseNow(() -> n.checkRuntime(n.api.eventDestroy(n.lib, handle), comm.rank(), "EventDestroy"));
    }
}
