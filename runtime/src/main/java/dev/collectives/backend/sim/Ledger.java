package dev.collectives.backend.sim;

import java.util.concurrent.atomic.AtomicInteger;

/** Counts a cluster's live resources as they are made and released. */
final class Ledger {
    final AtomicInteger allocations = new AtomicInteger();
    final AtomicInteger registrations = new AtomicInteger();
    final AtomicInteger windows = new AtomicInteger();
    final AtomicInteger graphs = new AtomicInteger();
    final AtomicInteger graphExecs = new AtomicInteger();

    SimUsage snapshot() {
        return new SimUsage(allocations.get(), registrations.get(), windows.get(), graphs.get(), graphExecs.get());
    }
}
