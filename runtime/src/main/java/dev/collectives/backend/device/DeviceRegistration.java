package dev.collectives.backend.device;

import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegistrationHandle;

/** {@code CommRegister} of a root allocation; closing deregisters it (R6). */
final class DeviceRegistration implements RegistrationHandle {
    private final DeviceRank comm;
    private final NativeComm owner;
    private final DeviceBuffer buffer;
    private final NativeMemory memory;
    private final long handle;
    private volatile boolean open = true;

    DeviceRegistration(DeviceRank comm, DeviceBuffer buffer, NativeMemory memory, long handle) {
        this.comm = comm;
        this.owner = comm.nativeComm();
        this.buffer = buffer;
        this.memory = memory;
        this.handle = handle;
        memory.registrations.incrementAndGet();
        owner.track(this);
    }

    @Override
    public DeviceBuffer buffer() {
        return buffer;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public synchronized void close() {
        if (open) {
            open = false;
            NativeLibrary n = comm.library();
            if (!owner.isAborted()) { // the abort freed the communicator with its registrations
                owner.complete(n.api.commDeregister(n.lib, owner.handle(), handle), n.dialect.ccl("CommDeregister"));
            }
            memory.registrations.decrementAndGet();
            owner.untrack(this);
        }
    }

    @Override
    public String toString() {
        return "registration of " + buffer;
    }
}
