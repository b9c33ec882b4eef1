package dev.collectives.backend.sim;

import java.util.List;

/**
 * One stream item: steps of launched ops (a single op, a group, or a graph's steps in order), and the memory it
 * pinned so that freeing that memory waits for it.
 */
record Work(List<List<Launched>> steps, List<SimMemory.Pin> pinned) {
    void unpin() {
        pinned.forEach(SimMemory.Pin::release);
    }
}
