package dev.collectives.backend.sim;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ops of a captured graph and the memory they use. A graph and each of its instantiations hold that memory
 * while they live, so that freeing it first is refused (R5) and a replay never touches freed memory.
 */
abstract class CapturedOps implements AutoCloseable {
    final SimCommunicator comm;
    final List<List<OpCall>> steps;
    private final List<SimMemory> memory;
    private boolean closed;

    CapturedOps(SimCommunicator comm, List<List<OpCall>> steps) {
        this.comm = comm;
        this.steps = List.copyOf(steps);
        Map<SimMemory, Boolean> used = new IdentityHashMap<>();
        for (List<OpCall> step : steps) {
            for (OpCall call : step) {
                add(used, call.send());
                add(used, call.recv());
            }
        }
        this.memory = new ArrayList<>(used.keySet());
        memory.forEach(SimMemory::addGraphUse);
    }

    private static void add(Map<SimMemory, Boolean> used, DeviceBuffer buffer) {
        if (buffer != null) {
            used.put((SimMemory) buffer.memory(), Boolean.TRUE);
        }
    }

    synchronized void requireOpen(String what) {
        if (closed) {
            throw CollectivesException.usage(comm.rank(), what + " was already destroyed");
        }
    }

    /** Releases the memory and counts this object down, once. */
    synchronized boolean release() {
        if (closed) {
            return false;
        }
        closed = true;
        memory.forEach(SimMemory::removeGraphUse);
        return true;
    }

    @Override
    public abstract void close();
}
