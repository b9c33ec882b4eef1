package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.runtime.DeviceMemory;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * How a rank in another process described its memory when it called: its head address there, its size and where it
 * came from, so that the checks of a call see the same buffers (and print the same text) on every rank. It holds no
 * bytes; the data of a call travels beside its description.
 */
final class RemoteMemory extends DeviceMemory {
    private final int rank;

    RemoteMemory(
            int rank,
            long address,
            long size,
            Allocator allocator,
            long physicalSize,
            long reservedSize,
            String foreignClass) {
        super(address, size, allocator, physicalSize, reservedSize, Set.of(), foreignClass);
        this.rank = rank;
    }

    @Override
    public void copyIn(long offset, ByteBuffer src) {
        throw elsewhere();
    }

    @Override
    public void copyOut(long offset, ByteBuffer dst) {
        throw elsewhere();
    }

    @Override
    protected void free() {
        throw elsewhere();
    }

    private UnsupportedOperationException elsewhere() {
        return new UnsupportedOperationException(this + " is rank " + rank + "'s, in another process");
    }
}
