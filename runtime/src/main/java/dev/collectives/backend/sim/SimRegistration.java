package dev.collectives.backend.sim;

import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegistrationHandle;

/**
 * One {@code register} call's handle on a (cached, reference-counted) registration. Each call gets its own handle,
 * which deregisters at most once, so a stale handle can never release someone else's reference.
 */
final class SimRegistration implements RegistrationHandle {
    private final SimCommunicator comm;
    private final DeviceBuffer buffer;
    private final SimMemory memory;
    private boolean open = true;

    SimRegistration(SimCommunicator comm, DeviceBuffer buffer, SimMemory memory) {
        this.comm = comm;
        this.buffer = buffer;
        this.memory = memory;
    }

    SimCommunicator communicator() {
        return comm;
    }

    @Override
    public DeviceBuffer buffer() {
        return buffer;
    }

    @Override
    public synchronized boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (!open) {
                return;
            }
            open = false;
        }
        comm.release(memory);
    }

    @Override
    public String toString() {
        return "registration handle of " + buffer + " on rank " + comm.rank() + (isOpen() ? "" : " (deregistered)");
    }
}
