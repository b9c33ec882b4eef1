package dev.collectives.backend.sim;

import java.util.List;

/**
 * One stream item of a communicator: steps of launched ops (a single op, a group, or a graph's steps in order),
 * and the memory it pinned so that freeing that memory waits for it.
 */
record Work(OpIssuer issuer, List<List<Launched>> steps, List<SimMemory.Pin> pinned) implements SimStream.Task {
    @Override
    public void run() {
        try {
            issuer.execute(steps);
        } finally {
            pinned.forEach(SimMemory.Pin::release);
        }
    }
}
