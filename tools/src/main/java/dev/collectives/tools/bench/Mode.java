package dev.collectives.tools.bench;

import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * How the benchmarks' buffers meet the library: NONE (plain buffers), LOCAL (registered once), GRAPH (the op
 * captured once, the graph launched per call), WINDOW (symmetric windows).
 */
enum Mode {
    NONE,
    LOCAL,
    GRAPH,
    WINDOW;

    /** The registrations this mode makes of {@code buffers}, closed (before the memory) by the caller. */
    AutoCloseable register(Communicator comm, DeviceBuffer... buffers) {
        List<AutoCloseable> handles = new ArrayList<>();
        for (DeviceBuffer buffer : buffers) {
            if (this == LOCAL) {
                handles.add(comm.register(buffer));
            } else if (this == WINDOW) {
                handles.add(comm.registerWindow(buffer, true));
            }
        }
        return () -> {
            for (AutoCloseable handle : handles) {
                handle.close();
            }
        };
    }
}
