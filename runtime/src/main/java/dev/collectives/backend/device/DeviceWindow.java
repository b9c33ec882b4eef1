package dev.collectives.backend.device;

import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegisteredWindow;
import java.util.OptionalLong;

/**
 * {@code CommWindowRegister}ed memory (R12). The helpers of R10 are optional symbols: where the library lacks
 * them, or answers with a NULL pointer (a library without symmetric support), they return empty.
 */
final class DeviceWindow implements RegisteredWindow {
    private final DeviceRank comm;
    private final NativeComm owner;
    private final DeviceBuffer buffer;
    private final NativeMemory memory;
    private final long handle;
    private final boolean symmetric;
    private final long[] out = new long[1];
    private boolean closed;

    DeviceWindow(DeviceRank comm, DeviceBuffer buffer, NativeMemory memory, long handle, boolean symmetric) {
        this.comm = comm;
        this.owner = comm.nativeComm();
        this.buffer = buffer;
        this.memory = memory;
        this.handle = handle;
        this.symmetric = symmetric;
        memory.windows.incrementAndGet();
        owner.track(this);
    }

    @Override
    public DeviceBuffer buffer() {
        return buffer;
    }

    @Override
    public boolean symmetric() {
        return symmetric;
    }

    @Override
    public synchronized OptionalLong userPointer() {
        NativeLibrary n = comm.library();
        if (!n.has(NativeLibrary.Slots.WIN_GET_USER_PTR)) {
            return OptionalLong.empty();
        }
        n.check(n.api.winGetUserPtr(n.lib, owner.handle(), handle, out), comm.rank(), owner.handle(), "WinGetUserPtr");
        return out[0] == 0 ? OptionalLong.empty() : OptionalLong.of(out[0]);
    }

    @Override
    public synchronized OptionalLong lsaDevicePointer(long offset, int lsaRank) {
        NativeLibrary n = comm.library();
        if (!n.has(NativeLibrary.Slots.GET_LSA_DEVICE_POINTER)) {
            return OptionalLong.empty();
        }
        n.check(
                n.api.getLsaDevicePointer(n.lib, handle, offset, lsaRank, out),
                comm.rank(),
                owner.handle(),
                "GetLsaDevicePointer");
        return out[0] == 0 ? OptionalLong.empty() : OptionalLong.of(out[0]);
    }

    /** Collective, like registration: every rank closes its window. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            NativeLibrary n = comm.library();
            if (!owner.isAborted()) { // the abort freed the communicator with its windows
                owner.complete(
                        n.api.windowDeregister(n.lib, owner.handle(), handle), n.dialect.ccl("CommWindowDeregister"));
            }
            memory.windows.decrementAndGet();
            owner.untrack(this);
        }
    }

    @Override
    public String toString() {
        return (symmetric ? "symmetric " : "") + "window on " + buffer;
    }
}
